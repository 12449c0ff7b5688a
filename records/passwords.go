package records

import (
	"fmt"
	"runtime"
	"sync"

	"golang.org/x/crypto/bcrypt"

	"learngate"
)

// PasswordRule is the message of a password the API's rules refuse.
const PasswordRule = "Invalid password: it must be 8 to 72 characters with at least one digit, one upper case and one lower case letter"

// HashNewPassword checks plain against the API's password rules (those of
// a user's password field) and returns its bcrypt hash, made outside any
// transaction; Unprocessable with PasswordRule when plain breaks them
// (also when it is empty: a new password is needed).
func HashNewPassword(plain string) (string, error) {
	s, valid, err := acceptedPassword(plain)
	if err != nil || !valid || s == "" {
		return "", &learngate.Error{Code: learngate.Unprocessable, Message: PasswordRule}
	}
	hashes, err := hashPasswords([]string{s})
	if err != nil {
		return "", err
	}
	return hashes[0], nil
}

// passwordCost is the bcrypt cost of stored passwords (bcrypt.DefaultCost, 10).
const passwordCost = bcrypt.DefaultCost

// hashPasswords returns the bcrypt hashes of plain, in the same order; ""
// gives "" (nothing to hash). The hashes are made in parallel by at most
// GOMAXPROCS goroutines. Every user save hashes through it before the
// store is called, so bcrypt never runs inside a transaction
// (docs/reliability.md, "Hostile and careless clients").
func hashPasswords(plain []string) ([]string, error) {
	hashes := make([]string, len(plain))
	errs := make([]error, len(plain))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(plain)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				hash, err := bcrypt.GenerateFromPassword([]byte(plain[i]), passwordCost)
				hashes[i], errs[i] = string(hash), err
			}
		}()
	}
	for i, p := range plain {
		if p != "" {
			next <- i
		}
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("hash password: %w", err)
		}
	}
	return hashes, nil
}
