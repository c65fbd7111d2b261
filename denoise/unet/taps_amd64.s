#include "textflag.h"

// ROW adds the three taps Y0..Y2 times the weights W0..W2 to the eight
// accumulators at (A)(AX).
#define ROW(A, W0, W1, W2) \
	VMOVUPS     (A)(AX*1), Y3; \
	VFMADD231PS Y0, W0, Y3;    \
	VFMADD231PS Y1, W1, Y3;    \
	VFMADD231PS Y2, W2, Y3;    \
	VMOVUPS     Y3, (A)(AX*1)

// func taps3x4(a0, a1, a2, a3, src *float32, w *[12]float32, n int)
TEXT ·taps3x4(SB), NOSPLIT, $0-56
	MOVQ a0+0(FP), R8
	MOVQ a1+8(FP), R9
	MOVQ a2+16(FP), R10
	MOVQ a3+24(FP), R11
	MOVQ src+32(FP), SI
	MOVQ w+40(FP), DI
	MOVQ n+48(FP), CX
	// The twelve weights, each in all eight lanes.
	VBROADCASTSS 0(DI), Y4
	VBROADCASTSS 4(DI), Y5
	VBROADCASTSS 8(DI), Y6
	VBROADCASTSS 12(DI), Y7
	VBROADCASTSS 16(DI), Y8
	VBROADCASTSS 20(DI), Y9
	VBROADCASTSS 24(DI), Y10
	VBROADCASTSS 28(DI), Y11
	VBROADCASTSS 32(DI), Y12
	VBROADCASTSS 36(DI), Y13
	VBROADCASTSS 40(DI), Y14
	VBROADCASTSS 44(DI), Y15
	SHLQ $2, CX // bytes
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE  done
	// The three taps: src[x..x+7], src[x+1..x+8], src[x+2..x+9].
	VMOVUPS 0(SI)(AX*1), Y0
	VMOVUPS 4(SI)(AX*1), Y1
	VMOVUPS 8(SI)(AX*1), Y2

	ROW(R8, Y4, Y5, Y6)
	ROW(R9, Y7, Y8, Y9)
	ROW(R10, Y10, Y11, Y12)
	ROW(R11, Y13, Y14, Y15)

	ADDQ $32, AX
	JMP  loop

done:
	VZEROUPPER
	RET
