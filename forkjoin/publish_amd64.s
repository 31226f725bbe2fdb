//go:build amd64 && !race

#include "textflag.h"

// func publish(bottom *atomic.Int64, v int64)
//
// A plain store of v into the int64 that atomic.Int64 wraps (its only
// field with a size: TestPublishLayout). See publish_amd64.go.
TEXT ·publish(SB), NOSPLIT, $0-16
	MOVQ	bottom+0(FP), AX
	MOVQ	v+8(FP), BX
	MOVQ	BX, (AX)
	RET
