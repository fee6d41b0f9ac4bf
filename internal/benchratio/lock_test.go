package benchratio

import (
	"runtime"
	"testing"
)

const runtimeGOOS = runtime.GOOS

func runtimeLock(t *testing.T) {
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
}
