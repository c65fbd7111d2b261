package render

import (
	"runtime"
	"sync"
)

// parallelRanges calls do on ranges [from, to) that cover [0, n) (rows
// of an image, elements of a layer), one range per core at once.
func parallelRanges(n int, do func(from, to int)) {
	parts := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	for k := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do(k*n/parts, (k+1)*n/parts)
		}()
	}
	wg.Wait()
}
