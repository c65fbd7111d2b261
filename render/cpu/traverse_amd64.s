#include "textflag.h"

// SLAB computes one axis's entry (TN) and exit (TF) distances for the eight
// boxes: (bound − o)·inv with the bounds the ray enters and leaves by,
// whose byte offsets in the node are at NEAR(DI) and FAR(DI); O and INV
// are the axis's origin and reciprocal direction in boxRay.
#define SLAB(O, INV, NEAR, FAR, TN, TF) \
	VBROADCASTSS O(DI), Y0;       \
	VBROADCASTSS INV(DI), Y1;     \
	MOVQ         NEAR(DI), AX;    \
	MOVQ         FAR(DI), BX;     \
	VMOVUPS      (SI)(AX*1), TN;  \
	VMOVUPS      (SI)(BX*1), TF;  \
	VSUBPS       Y0, TN, TN;      \
	VSUBPS       Y0, TF, TF;      \
	VMULPS       Y1, TN, TN;      \
	VMULPS       Y1, TF, TF

// func hitBoxes8(n *Node8, r *boxRay, tmax float32, near *[8]float32) uint32
TEXT ·hitBoxes8(SB), NOSPLIT, $0-36
	MOVQ n+0(FP), SI
	MOVQ r+8(FP), DI
	MOVQ near+24(FP), DX

	// The children's indices and counts (bytes 192 to 239), which the
	// walk reads next: fetched while the boxes are tested.
	PREFETCHT0 192(SI)
	PREFETCHT0 239(SI)

	// boxRay: o at 0, inv at 12, tmin at 24, near offsets at 32, far at 56.
	SLAB(0, 12, 32, 56, Y2, Y3)
	SLAB(4, 16, 40, 64, Y4, Y5)
	SLAB(8, 20, 48, 72, Y6, Y7)

	// A NaN among the six distances misses, as Go's max and min make it
	// (VMAXPS and VMINPS would drop it): the lanes where all are ordered.
	VCMPPS $7, Y3, Y2, Y10 // ORD_Q
	VCMPPS $7, Y5, Y4, Y11
	VANDPS Y11, Y10, Y10
	VCMPPS $7, Y7, Y6, Y11
	VANDPS Y11, Y10, Y12

	// tn = max(x, y, z, tmin), tf = min(x, y, z, tmax).
	VBROADCASTSS 24(DI), Y8
	VBROADCASTSS tmax+16(FP), Y9
	VMAXPS       Y4, Y2, Y2
	VMAXPS       Y6, Y2, Y2
	VMAXPS       Y8, Y2, Y2
	VMINPS       Y5, Y3, Y3
	VMINPS       Y7, Y3, Y3
	VMINPS       Y9, Y3, Y3

	// Hit where tn <= tf·(1 + 4 ulps), an ordered comparison (a NaN misses).
	MOVL         $0x3f800003, AX // 1.0000004 in float32
	VMOVD        AX, X10 // VEX: a legacy-SSE MOVD with dirty upper halves stalls Intel cores
	VBROADCASTSS X10, Y10
	VMULPS       Y10, Y3, Y3
	VCMPPS       $2, Y3, Y2, Y11 // LE_OS: Y2 <= Y3
	VANDPS       Y12, Y11, Y11
	VMOVMSKPS    Y11, AX
	VMOVUPS      Y2, (DX)
	VZEROUPPER
	MOVL         AX, ret+32(FP)
	RET

// VERTEX loads vertex J's coordinates along kx, ky and kz (rows at byte
// offsets AX, BX, CX from BASE), less the origin's, and shears them:
// X = Px − sx·Pz, Y = Py − sy·Pz; Z keeps Pz.
#define VERTEX(BASE, X, Y, Z) \
	VMOVUPS (BASE)(CX*1), Z; \
	VSUBPS  Y15, Z, Z;       \
	VMOVUPS (BASE)(AX*1), X; \
	VSUBPS  Y13, X, X;       \
	VMOVUPS (BASE)(BX*1), Y; \
	VSUBPS  Y14, Y, Y;       \
	VMULPS  Y11, Z, Y9;      \
	VSUBPS  Y9, X, X;        \
	VMULPS  Y12, Z, Y9;      \
	VSUBPS  Y9, Y, Y

// func hitTriangles8(rows *float32, count int, r *triRay, tmin, tmax float32, out *triHits) (hits, retest, back uint32)
TEXT ·hitTriangles8(SB), NOSPLIT, $0-52
	MOVQ rows+0(FP), SI
	MOVQ count+8(FP), R10
	MOVQ r+16(FP), DI
	MOVQ out+32(FP), DX

	// A row is count floats: row a of vertex j is at (3j + a)·count·4.
	SHLQ  $2, R10 // a row's bytes
	MOVQ  24(DI), AX
	IMULQ R10, AX // kx's row
	MOVQ  32(DI), BX
	IMULQ R10, BX
	MOVQ  40(DI), CX
	IMULQ R10, CX
	LEAQ  (R10)(R10*2), R11 // a vertex's three rows
	LEAQ  (SI)(R11*1), R12  // vertex 1
	LEAQ  (R12)(R11*1), R13 // vertex 2

	// triRay: origin (kx, ky, kz) at 0, shear at 12.
	VBROADCASTSS 0(DI), Y13
	VBROADCASTSS 4(DI), Y14
	VBROADCASTSS 8(DI), Y15
	VBROADCASTSS 12(DI), Y11
	VBROADCASTSS 16(DI), Y12

	VERTEX(SI, Y0, Y1, Y2)  // a: ax ay, Apz
	VERTEX(R12, Y3, Y4, Y5) // b
	VERTEX(R13, Y6, Y7, Y8) // c
	// The edge functions: e0 = cx·by − cy·bx, e1 = ax·cy − ay·cx,
	// e2 = bx·ay − by·ax.
	VMULPS Y4, Y6, Y9
	VMULPS Y3, Y7, Y10
	VSUBPS Y10, Y9, Y9 // e0
	VMULPS Y7, Y0, Y10
	VMULPS Y6, Y1, Y6
	VSUBPS Y6, Y10, Y10 // e1
	VMULPS Y1, Y3, Y3
	VMULPS Y0, Y4, Y4
	VSUBPS Y4, Y3, Y3 // e2

	// An edge function of exactly zero: the caller decides in float64.
	VXORPS    Y0, Y0, Y0
	VCMPPS    $0, Y0, Y9, Y1 // EQ_OQ
	VCMPPS    $0, Y0, Y10, Y4
	VORPS     Y4, Y1, Y1
	VCMPPS    $0, Y0, Y3, Y4
	VORPS     Y4, Y1, Y1
	VMOVMSKPS Y1, R8

	// Outside: some edge function negative and some positive.
	VCMPPS $1, Y0, Y9, Y4 // LT_OS: e0 < 0
	VCMPPS $1, Y0, Y10, Y6
	VORPS  Y6, Y4, Y4
	VCMPPS $1, Y0, Y3, Y6
	VORPS  Y6, Y4, Y4
	VCMPPS $1, Y9, Y0, Y6 // 0 < e0
	VCMPPS $1, Y10, Y0, Y7
	VORPS  Y7, Y6, Y6
	VCMPPS $1, Y3, Y0, Y7
	VORPS  Y7, Y6, Y6
	VANDPS Y6, Y4, Y4
	VORPS  Y1, Y4, Y4 // left out: outside, or to be decided again

	// det = e0 + e1 + e2; the scaled distance e0·az + e1·bz + e2·cz.
	VADDPS       Y10, Y9, Y6
	VADDPS       Y3, Y6, Y6 // det
	VBROADCASTSS 20(DI), Y7
	VMULPS       Y7, Y2, Y2
	VMULPS       Y7, Y5, Y5
	VMULPS       Y7, Y8, Y8
	VMULPS       Y2, Y9, Y2
	VMULPS       Y5, Y10, Y5
	VADDPS       Y5, Y2, Y2
	VMULPS       Y8, Y3, Y8
	VADDPS       Y8, Y2, Y2 // tScaled

	// In range: det > 0 and tmin·det < tScaled < tmax·det, or det < 0 and
	// the reverse (det = 0 neither).
	VBROADCASTSS tmin+24(FP), Y7
	VBROADCASTSS tmax+28(FP), Y8
	VMULPS       Y6, Y7, Y5  // tmin·det
	VMULPS       Y6, Y8, Y11 // tmax·det
	VCMPPS       $1, Y2, Y5, Y12
	VCMPPS       $1, Y11, Y2, Y13
	VANDPS       Y13, Y12, Y12
	VCMPPS       $1, Y5, Y2, Y13
	VCMPPS       $1, Y2, Y11, Y14
	VANDPS       Y14, Y13, Y13
	VCMPPS       $1, Y6, Y0, Y14 // det > 0
	VCMPPS       $1, Y0, Y6, Y15 // det < 0
	VANDPS       Y14, Y12, Y12
	VANDPS       Y15, Y13, Y13
	VORPS        Y13, Y12, Y12
	VMOVMSKPS    Y15, R9

	// t = tScaled / det (through 1/det, as u and v), inside (tmin, tmax).
	MOVL         $0x3f800000, AX // 1.0
	VMOVD        AX, X13 // VEX, as above
	VBROADCASTSS X13, Y13
	VDIVPS       Y6, Y13, Y13
	VMULPS       Y13, Y2, Y2
	VMULPS       Y13, Y10, Y10
	VMULPS       Y13, Y3, Y3
	VCMPPS       $1, Y2, Y7, Y14
	VCMPPS       $1, Y8, Y2, Y15
	VANDPS       Y15, Y14, Y14
	VANDPS       Y14, Y12, Y12
	VANDNPS      Y12, Y4, Y12 // and not left out
	VMOVMSKPS    Y12, AX

	VMOVUPS Y2, 0(DX)
	VMOVUPS Y10, 32(DX)
	VMOVUPS Y3, 64(DX)
	VZEROUPPER
	MOVL    AX, hits+40(FP)
	MOVL    R8, retest+44(FP)
	MOVL    R9, back+48(FP)
	RET
