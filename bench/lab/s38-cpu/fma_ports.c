#include <stdio.h>
#include <x86intrin.h>
#define R8(op) op(0) op(1) op(2) op(3) op(4) op(5) op(6) op(7) op(8) op(9) op(10) op(11)
#define Z(i) "vfmadd213ps %%zmm20, %%zmm21, %%zmm" #i "\n\t"
#define Y(i) "vfmadd213ps %%ymm20, %%ymm21, %%ymm" #i "\n\t"
#define X(i) "vaddps %%zmm20, %%zmm" #i ", %%zmm" #i "\n\t"
int main(void){
  long N=50000000; unsigned long long t0,t1,t2,t3;
  t0=__rdtsc();
  for(long k=0;k<N;k++) __asm__ volatile(R8(Z) ::: "memory");
  t1=__rdtsc();
  for(long k=0;k<N;k++) __asm__ volatile(R8(Y) ::: "memory");
  t2=__rdtsc();
  for(long k=0;k<N;k++) __asm__ volatile(R8(X) ::: "memory");
  t3=__rdtsc();
  printf("zmm fma %.3f  ymm fma %.3f  zmm add %.3f tsc/op\n",(double)(t1-t0)/(N*12),(double)(t2-t1)/(N*12),(double)(t3-t2)/(N*12));
}
