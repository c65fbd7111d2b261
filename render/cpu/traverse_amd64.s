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

	// boxRay: o at 0, inv at 12, tmin at 24, near offsets at 32, far at 56.
	SLAB(0, 12, 32, 56, Y2, Y3)
	SLAB(4, 16, 40, 64, Y4, Y5)
	SLAB(8, 20, 48, 72, Y6, Y7)

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
	MOVL         AX, X10
	VBROADCASTSS X10, Y10
	VMULPS       Y10, Y3, Y3
	VCMPPS       $2, Y3, Y2, Y11 // LE_OS: Y2 <= Y3
	VMOVMSKPS    Y11, AX
	VMOVUPS      Y2, (DX)
	VZEROUPPER
	MOVL         AX, ret+32(FP)
	RET
