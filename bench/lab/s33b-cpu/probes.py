# probes.py SRC.c OUTDIR: session 33b's text edits of an emitted cross_entropy f32 source (the
# probes of bench/NOTES.md, session 33b CPU, "What bounds it"); each written as OUTDIR/P_<name>.c, compile with cc.sh.
# Wrong values where those notes say so: they measure time only.
import os, sys
src, out = sys.argv[1], sys.argv[2]
a = open(src).read()
CLAMP = "const vf xc = rr_vmax_acc(x, rr_vsplat(-87.0f)); /* -87 where x is below, x where NaN */"
SCALE = "return p * (vf)((vu)t << 23); /* 2^k */"
GATHER = "const float s8 = idx1 >= 0 && idx1 < N ? load_io(in0, idx1) : NAN; /* x[t] */"
probes = {
    # no exp in the split's sum pass (e = x - m)
    "noexp": [("const vf e4 = rr_vexp_nonpos_summed(e3);", "const vf e4 = e3;")],
    # no max pass: the aligned loop and the chained chunks skipped (the guarded chunk stays)
    "nomax": [("if (chunks * W * V >= 1024) { /* the row's aligned vectors",
               "if (0) { /* the row's aligned vectors"),
              ("for (; chunk + CHAINS <= chunks; chunk += CHAINS) {",
               "chunk = chunks;\n\t\t\t\tfor (; chunk + CHAINS <= chunks; chunk += CHAINS) {")],
    # exp without its clamp (the same bits on rows in range)
    "noclamp": [(CLAMP, "const vf xc = x;")],
    # 2^k added to p's exponent bits instead of multiplied in (NaN payloads not kept)
    "intscale": [(SCALE, "return (vf)((vu)p + ((vu)t << 23) - (vu)rr_vsplat(0.0f) - (127u << 23)); /* probe */")],
    # x[t] not loaded
    "nogather": [(GATHER, "const float s8 = (float)idx1; /* probe: no gather */")],
}
for name, edits in probes.items():
    b = a
    for old, new in edits:
        if old not in b:
            print(f"{name}: not found: {old[:50]}")
            break
        b = b.replace(old, new, 1)
    else:
        open(os.path.join(out, f"P_{name}.c"), "w").write(b)
# The rough degree-4 probe on main's degree-5 form (its highest term dropped, coefficients not
# refitted): main's source only.
DEG5 = """	vf p = rr_vfma(rr_vsplat(8.312521502e-03f), r, rr_vsplat(4.189015925e-02f));
	p = rr_vfma(p, r, rr_vsplat(1.666711420e-01f));"""
if DEG5 in a:
    open(os.path.join(out, "P_deg4.c"), "w").write(
        a.replace(DEG5, "\tvf p = rr_vfma(rr_vsplat(4.189015925e-02f), r, rr_vsplat(1.666711420e-01f));"))
