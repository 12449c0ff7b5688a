package httpx

import (
	"context"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/sync/semaphore"

	"learngate"
)

// A body costs memory twice: its bytes while it is read, and its decoded
// form (maps, slices and strings) while its handler runs, about as much
// again. Reading is bounded per request (MaxBodyBytes) and is cheap for a
// slow sender (the buffer grows as bytes arrive); decoding is bounded for
// the whole process here, so that many large bodies at once cannot take the
// process past its memory (docs/decisions.md, "Bodies and hostile input").
const (
	// decodeBudgetBytes is the most body bytes being decoded and handled at
	// once, in the whole process: three bodies of the largest size.
	decodeBudgetBytes = 3 * MaxBodyBytes
	// smallBodyBytes is the size under which a body takes nothing from the
	// budget: the everyday request never waits for it.
	smallBodyBytes = 64 << 10
	// decodeWait is how long a large body waits for room in the budget
	// before the request answers 503.
	decodeWait = 15 * time.Second
)

const (
	decodeBudgetKey = "learngate.decodeBudget"
	decodeHeldKey   = "learngate.decodeHeld"
)

// newDecodeBudget returns the process's decoding budget.
func newDecodeBudget() *semaphore.Weighted { return semaphore.NewWeighted(decodeBudgetBytes) }

// holdDecodeBudget takes room for a body of n bytes from the budget that
// limitBody put in the request, waiting at most decodeWait; limitBody gives
// it back when the handler is done. A small body, or a request outside a
// budgeted chain, takes nothing.
func holdDecodeBudget(c *gin.Context, n int) error {
	budget, ok := c.Get(decodeBudgetKey)
	if !ok || n < smallBodyBytes {
		return nil
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), decodeWait)
	defer cancel()
	if err := budget.(*semaphore.Weighted).Acquire(ctx, int64(n)); err != nil {
		return learngate.Errorf(learngate.Unavailable, "no room to decode a body of %d bytes: %v", n, err)
	}
	c.Set(decodeHeldKey, int64(n)+c.GetInt64(decodeHeldKey))
	return nil
}

// releaseDecodeBudget gives back what the request's bodies took.
func releaseDecodeBudget(c *gin.Context, budget *semaphore.Weighted) {
	if held := c.GetInt64(decodeHeldKey); held > 0 {
		budget.Release(held)
		c.Set(decodeHeldKey, int64(0))
	}
}
