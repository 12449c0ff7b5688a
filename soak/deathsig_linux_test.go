//go:build slow

package soak

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes cmd get SIGKILL when the test process dies, so that a
// test binary killed mid-run (a timeout, a closed output pipe) leaves no
// server behind.
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
