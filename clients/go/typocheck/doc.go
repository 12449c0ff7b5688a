// Package typocheck holds, behind the build tag typocheck, code that must
// not compile (see typo.go).
package typocheck
