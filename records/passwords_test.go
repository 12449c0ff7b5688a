package records

import (
	"errors"
	"go/parser"
	"go/token"
	"golang.org/x/crypto/bcrypt"
	"learngate"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHashPasswords: the hashes come back in the order of the passwords,
// each verifies against its own password only, at the cost of today
// (bcrypt.DefaultCost), and "" gives "" (nothing to hash).
func TestHashPasswords(t *testing.T) {
	plain := []string{"Secret123", "", "Other456x", "Third789y", "Fourth012z"}
	hashes, err := hashPasswords(plain)
	if err != nil {
		t.Fatal(err)
	}
	if len(hashes) != len(plain) {
		t.Fatalf("%d hashes for %d passwords", len(hashes), len(plain))
	}
	for i, p := range plain {
		if p == "" {
			if hashes[i] != "" {
				t.Errorf("hash of \"\" = %q, want \"\"", hashes[i])
			}
			continue
		}
		if err := bcrypt.CompareHashAndPassword([]byte(hashes[i]), []byte(p)); err != nil {
			t.Errorf("hash %d does not verify %q: %v", i, p, err)
		}
		if cost, err := bcrypt.Cost([]byte(hashes[i])); err != nil || cost != bcrypt.DefaultCost {
			t.Errorf("hash %d cost = %d (%v), want %d", i, cost, err, bcrypt.DefaultCost)
		}
		if other := plain[(i+2)%len(plain)]; other != "" && bcrypt.CompareHashAndPassword([]byte(hashes[i]), []byte(other)) == nil {
			t.Errorf("hash %d verifies another password %q", i, other)
		}
	}
}

// TestBatchPasswordsHashedBeforeTheStore proves that a batch row's password
// is hashed when the rows are made, before the store opens its transaction:
// Input, which the store calls inside the transaction under FOR UPDATE row
// locks, runs no bcrypt and hands out the same hash on every call, and
// only the hash reaches the UserInput.
func TestBatchPasswordsHashedBeforeTheStore(t *testing.T) {
	people := []any{
		map[string]any{"user_name": "ann", "password": "Secret123"},
		map[string]any{"user_name": "bob", "password": "Other456x"},
		map[string]any{"user_name": "cat", "password": "short"},
		map[string]any{"user_name": "dan", "first_name": "Dan", "last_name": "Dye", "email": "dan@example.com", "password": ""},
		map[string]any{"first_name": "Nameless", "password": "Secret123"},
		"eve",
	}
	rows := UserBatchRows(people, "UTC")
	for i, want := range []string{"Secret123", "Other456x"} {
		first, err := rows[i].Input(false)
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		again, err := rows[i].Input(false)
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		if first.PasswordHash == nil || again.PasswordHash == nil {
			t.Fatalf("row %d: no password hash", i)
		}
		if *first.PasswordHash == want || bcrypt.CompareHashAndPassword([]byte(*first.PasswordHash), []byte(want)) != nil {
			t.Fatalf("row %d: PasswordHash = %q, want the bcrypt hash of %q", i, *first.PasswordHash, want)
		}
		// bcrypt salts every hash: a second hash would differ.
		if *again.PasswordHash != *first.PasswordHash {
			t.Fatalf("row %d: Parse hashed the password again (%q, then %q)", i, *first.PasswordHash, *again.PasswordHash)
		}
	}
	_, err := rows[2].Input(false)
	var e *learngate.Error
	if !errors.As(err, &e) || e.Code != learngate.Unprocessable || !strings.HasPrefix(e.Message, "Invalid password") {
		t.Fatalf("short password: err = %v, want the 422 sentence", err)
	}
	if in, err := rows[3].Input(false); err != nil || in.PasswordHash == nil || *in.PasswordHash != "" {
		t.Fatalf("\"\" on update: %+v, %v; want PasswordHash \"\" (removes it)", in.PasswordHash, err)
	}
	if in, err := rows[3].Input(true); err != nil || in.PasswordHash != nil {
		t.Fatalf("\"\" on create: %+v, %v; want no PasswordHash", in.PasswordHash, err)
	}
	if rows[4].Err == nil || rows[5].Err == nil {
		t.Fatalf("rows without a user_name or not objects must keep their error: %v, %v", rows[4].Err, rows[5].Err)
	}
}

// TestStoreRunsNoBcrypt guards the rule that CPU-heavy hashing never runs
// while a transaction holds row locks: no non-test file of the store
// imports bcrypt, so the store can only write hashes made before it.
func TestStoreRunsNoBcrypt(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "store", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("store sources: %v, %v", files, err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := parser.ParseFile(fset, f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); strings.Contains(path, "bcrypt") {
				t.Errorf("%s imports %s", f, path)
			}
		}
	}
}

// TestHashNewPassword: the sign-in page's new password follows the API's
// rules; a refused one is Unprocessable with the rule's message.
func TestHashNewPassword(t *testing.T) {
	for _, tc := range []struct {
		plain string
		ok    bool
	}{
		{"Secret123", true},
		{"Ünïcode9x", true},
		{"", false},
		{"Short1a", false},
		{"alllower123", false},
		{"ALLUPPER123", false},
		{"NoDigitsHere", false},
		{strings.Repeat("A", 70) + "a1", true},
		{strings.Repeat("A", 71) + "a1", false},
	} {
		t.Run(strconv.Quote(tc.plain), func(t *testing.T) {
			hash, err := HashNewPassword(tc.plain)
			if !tc.ok {
				var e *learngate.Error
				if !errors.As(err, &e) || e.Code != learngate.Unprocessable || e.Message != PasswordRule || hash != "" {
					t.Fatalf("HashNewPassword(%q) = %q, %v; want Unprocessable %q", tc.plain, hash, err, PasswordRule)
				}
				return
			}
			if err != nil || bcrypt.CompareHashAndPassword([]byte(hash), []byte(tc.plain)) != nil {
				t.Fatalf("HashNewPassword(%q) = %q, %v", tc.plain, hash, err)
			}
		})
	}
}
