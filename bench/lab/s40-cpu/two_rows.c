#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <math.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static inline __m512 vexp(__m512 x){
  const __m512 xc=_mm512_max_ps(_mm512_set1_ps(-110.f),x);
  const __m512 sh=_mm512_set1_ps(12582912.0f);
  const __m512 k=_mm512_sub_ps(_mm512_fmadd_ps(xc,_mm512_set1_ps(1.442695041f),sh),sh);
  __m512 r=_mm512_fmadd_ps(k,_mm512_set1_ps(-6.931152344e-01f),xc);
  r=_mm512_fmadd_ps(k,_mm512_set1_ps(-3.194618330e-05f),r);
  __m512 p=_mm512_fmadd_ps(_mm512_set1_ps(1.381603652e-03f),r,_mm512_set1_ps(8.368710056e-03f));
  p=_mm512_fmadd_ps(p,r,_mm512_set1_ps(4.166835919e-02f));
  p=_mm512_fmadd_ps(p,r,_mm512_set1_ps(1.666652113e-01f));
  p=_mm512_fmadd_ps(p,r,_mm512_set1_ps(4.999999404e-01f));
  p=_mm512_fmadd_ps(p,r,_mm512_set1_ps(1.0f));
  p=_mm512_fmadd_ps(p,r,_mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p,k);
}
#define NOINL __attribute__((noinline))
static NOINL void row1(const float*x,float*y,long N){
  long nv=N/16; __mmask16 tm=(__mmask16)((1u<<(N%16))-1);
  __m512 m=_mm512_set1_ps(-INFINITY);
  for(long v=0;v<nv;v++) m=_mm512_max_ps(m,_mm512_loadu_ps(x+16*v));
  if(tm) m=_mm512_mask_max_ps(m,tm,m,_mm512_maskz_loadu_ps(tm,x+16*nv));
  __m512 mb=_mm512_set1_ps(_mm512_reduce_max_ps(m));
  __m512 s=_mm512_setzero_ps();
  for(long v=0;v<nv;v++){__m512 e=vexp(_mm512_sub_ps(_mm512_loadu_ps(x+16*v),mb));_mm512_storeu_ps(y+16*v,e);s=_mm512_add_ps(s,e);}
  if(tm){__m512 e=vexp(_mm512_sub_ps(_mm512_maskz_loadu_ps(tm,x+16*nv),mb));_mm512_mask_storeu_ps(y+16*nv,tm,e);s=_mm512_mask_add_ps(s,tm,s,e);}
  __m512 inv=_mm512_set1_ps(1.0f/_mm512_reduce_add_ps(s));
  for(long v=0;v<nv;v++) _mm512_storeu_ps(y+16*v,_mm512_mul_ps(_mm512_loadu_ps(y+16*v),inv));
  if(tm) _mm512_mask_storeu_ps(y+16*nv,tm,_mm512_mul_ps(_mm512_maskz_loadu_ps(tm,y+16*nv),inv));
}
static NOINL void row2(const float*x,float*y,const float*x2,float*y2,long N){
  long nv=N/16; __mmask16 tm=(__mmask16)((1u<<(N%16))-1);
  __m512 m=_mm512_set1_ps(-INFINITY), m2=m;
  for(long v=0;v<nv;v++){ m=_mm512_max_ps(m,_mm512_loadu_ps(x+16*v)); m2=_mm512_max_ps(m2,_mm512_loadu_ps(x2+16*v));}
  if(tm){ m=_mm512_mask_max_ps(m,tm,m,_mm512_maskz_loadu_ps(tm,x+16*nv)); m2=_mm512_mask_max_ps(m2,tm,m2,_mm512_maskz_loadu_ps(tm,x2+16*nv));}
  __m512 mb=_mm512_set1_ps(_mm512_reduce_max_ps(m)), mb2=_mm512_set1_ps(_mm512_reduce_max_ps(m2));
  __m512 s=_mm512_setzero_ps(), s2=s;
  for(long v=0;v<nv;v++){__m512 e=vexp(_mm512_sub_ps(_mm512_loadu_ps(x+16*v),mb));_mm512_storeu_ps(y+16*v,e);s=_mm512_add_ps(s,e);
    __m512 e2=vexp(_mm512_sub_ps(_mm512_loadu_ps(x2+16*v),mb2));_mm512_storeu_ps(y2+16*v,e2);s2=_mm512_add_ps(s2,e2);}
  if(tm){__m512 e=vexp(_mm512_sub_ps(_mm512_maskz_loadu_ps(tm,x+16*nv),mb));_mm512_mask_storeu_ps(y+16*nv,tm,e);s=_mm512_mask_add_ps(s,tm,s,e);
    __m512 e2=vexp(_mm512_sub_ps(_mm512_maskz_loadu_ps(tm,x2+16*nv),mb2));_mm512_mask_storeu_ps(y2+16*nv,tm,e2);s2=_mm512_mask_add_ps(s2,tm,s2,e2);}
  __m512 inv=_mm512_set1_ps(1.0f/_mm512_reduce_add_ps(s)), inv2=_mm512_set1_ps(1.0f/_mm512_reduce_add_ps(s2));
  for(long v=0;v<nv;v++){ _mm512_storeu_ps(y+16*v,_mm512_mul_ps(_mm512_loadu_ps(y+16*v),inv)); _mm512_storeu_ps(y2+16*v,_mm512_mul_ps(_mm512_loadu_ps(y2+16*v),inv2));}
  if(tm){ _mm512_mask_storeu_ps(y+16*nv,tm,_mm512_mul_ps(_mm512_maskz_loadu_ps(tm,y+16*nv),inv)); _mm512_mask_storeu_ps(y2+16*nv,tm,_mm512_mul_ps(_mm512_maskz_loadu_ps(tm,y2+16*nv),inv2));}
}
int main(int argc,char**argv){
  long M=atol(argv[1]),N=atol(argv[2]); int reps=atoi(argv[3]);
  float*x=aligned_alloc(64,(M*N*4+63)/64*64),*y=aligned_alloc(64,(M*N*4+63)/64*64);
  for(long i=0;i<M*N;i++) x[i]=(float)((i*2654435761u)%1000)/100.f;
  for(int rr=0;rr<3;rr++){
  double t0=now(); for(int r=0;r<reps;r++) for(long i=0;i<M;i++) row1(x+i*N,y+i*N,N); double t1=now()-t0;
  t0=now(); for(int r=0;r<reps;r++){ long i=0; for(;i+2<=M;i+=2) row2(x+i*N,y+i*N,x+(i+1)*N,y+(i+1)*N,N); if(i<M) row1(x+i*N,y+i*N,N);} double t2=now()-t0;
  printf("N=%ld one %.3f ns/elem  two %.3f ns/elem  ratio %.3f\n",N,t1/reps/(M*N)*1e9,t2/reps/(M*N)*1e9,t2/t1);}
}
