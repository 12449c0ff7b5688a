//go:build slow

package web

import (
	"bytes"
	"context"
	"learngate"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/jmoiron/sqlx"
	"golang.org/x/crypto/bcrypt"

	"learngate/handlers/handlertest"
	"learngate/store"
	"learngate/store/storetest"
	"learngate/tenant"
)

// The learner's sign-in in a real browser (docs/sign-in.md): headless
// Chromium, driven with chromedp, against the real public router on
// 127.0.0.1, a real OpenID provider (zitadel's example server) and the
// real certificate worker. Without Chromium on PATH the test is skipped,
// visibly (make browser-install, docs/operations.md); it installs nothing.

// browserShots keeps the screenshots of a run: a folder of the test's own,
// and also the folder LEARNGATE_TEST_SCREENSHOTS names, when set (to look
// at them after the run; docs/images/my-learning.png is one of them).
type browserShots struct {
	t   *testing.T
	dir string
}

// take saves a PNG of the page as it is now under name.
func (s browserShots) take(ctx context.Context, name string) string {
	s.t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		s.t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(s.dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		s.t.Fatal(err)
	}
	if keep := os.Getenv("LEARNGATE_TEST_SCREENSHOTS"); keep != "" {
		if err := os.WriteFile(filepath.Join(keep, name+".png"), png, 0o644); err != nil {
			s.t.Fatalf("keep the screenshot: %v", err)
		}
	}
	s.t.Logf("screenshot: %s", path)
	return path
}

// chromiumPath finds the browser, or skips the test.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH: run make browser-install (docs/operations.md)")
	return ""
}

// newChromium starts headless Chromium with a fresh profile; every
// *.learngate.localhost host goes to 127.0.0.1.
func newChromium(t *testing.T, exe string) context.Context {
	t.Helper()
	return newChromiumWith(t, exe)
}

// newChromiumWith is newChromium with more options (flags).
func newChromiumWith(t *testing.T, exe string, more ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("host-resolver-rules", "MAP *.learngate.localhost 127.0.0.1"),
		chromedp.WindowSize(1280, 800),
	}
	opts = append(opts, more...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// TestSignInInBrowser: a learner opens the login page on their
// organisation's host, signs in at the provider, sees My learning (with an
// enrolment's due date) at desktop and phone widths, downloads a
// certificate PDF and signs out; then a learner whose record asks for a new
// password signs in with the password form and chooses one on /password.
// axe-core finds no serious accessibility violation on the pages (the
// login page with its password form and /password included). Screenshots go to the test's temporary folder.
func TestSignInInBrowser(t *testing.T) {
	exe := chromiumPath(t)
	h := newHarness(t, harnessOptions{})
	h.createTenant("ssoa")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	idp := startIdPFor(t, port, "ssoa")
	secret, passwords := "ssoa-secret", true
	if _, err := h.registry.SetSSO(context.Background(), "ssoa", tenant.SSOInput{Protocol: "oidc", Issuer: idp.issuer,
		ClientID: "ssoa-client", ClientSecret: &secret, PasswordLogin: &passwords}); err != nil {
		t.Fatal(err)
	}
	alice := seedLearner(t, h, "ssoa", "alice@example.test", true)
	tdb := tenantHandle(t, h, "ssoa")
	seedForcedPasswordUser(t, tdb, "dora", "Old9secret")
	enrolment := storetest.SeedConqueredEnrolment(t, tdb, alice.ID, "Fire safety", time.Now().Add(-time.Hour))
	due := time.Date(2031, 3, 14, 0, 0, 0, 0, time.UTC)
	if err := tdb.Tx(context.Background(), func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`UPDATE topic_enrolments SET due_date = $1 WHERE id = $2`, due, enrolment)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	startCertificateWorker(t, h, time.Now)
	srv := &http.Server{Handler: h.pagesRouter(t), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	origin := "http://" + acmeHost + ":" + port

	ctx := newChromium(t, exe)
	shots := browserShots{t: t, dir: t.TempDir()}
	downloads := t.TempDir()
	pdfs := make(chan string, 4)
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventResponseReceived); ok && e.Response.MimeType == "application/pdf" && e.Response.Status == 200 {
			select {
			case pdfs <- e.Response.URL:
			default:
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			url, _ := chromedp.Run(ctx, chromedp.Location())
			body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
			t.Fatalf("%s: %v (at %s: %.500s)", what, err, url, body)
		}
	}
	read := func(what string, a chromedp.Action[string]) string {
		t.Helper()
		v, err := chromedp.Run(ctx, a)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
	if _, err := chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads}); err != nil {
		t.Fatalf("allow downloads: %v", err)
	}

	run("open the login page", chromedp.EmulateViewport(1280, 800), chromedp.Navigate(origin+"/login"), chromedp.WaitVisible(chromedp.CSS("main a.button")))
	text := read("sign-in button", chromedp.Text(chromedp.CSS("main a.button")))
	if text != "Sign in with ssoa" {
		t.Errorf("sign-in button reads %q", text)
	}
	if n := read("password form", chromedp.Evaluate[string](`String(document.querySelectorAll('main form[action="/login"] input[type=password]').length)`)); n != "1" {
		t.Errorf("the login page shows %s password fields, want the password form", n)
	}
	shots.take(ctx, "1-login")
	checkAccessibility(t, ctx, "login page with the password form")

	run("go to the provider", chromedp.Click(chromedp.CSS("main a.button")), chromedp.WaitVisible(chromedp.ID("username")))
	shots.take(ctx, "2-provider-login")
	run("sign in at the provider", chromedp.SendKeys(chromedp.ID("username"), "alice@example.test"),
		chromedp.SendKeys(chromedp.ID("password"), "verysecure"), chromedp.Submit(chromedp.ID("password")),
		chromedp.WaitVisible(chromedp.CSS("main table")))

	loc := read("location", chromedp.Location())
	page := read("My learning", chromedp.Text(chromedp.CSS("main")))
	if loc != origin+"/learn" {
		t.Errorf("landed on %s, want %s/learn", loc, origin)
	}
	for _, want := range []string{"My learning", "Signed in as Ada alice", "Fire safety", "Conquered", "2031-03-14"} {
		if !strings.Contains(page, want) {
			t.Errorf("My learning lacks %q: %s", want, page)
		}
	}
	desktop := shots.take(ctx, "3-my-learning-desktop")
	if inked := handlertest.InkedShare(t, desktop); inked < 0.01 {
		t.Errorf("screenshot %s is blank (%.2f%% inked)", desktop, inked*100)
	}
	checkAccessibility(t, ctx, "My learning")
	run("phone width", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	shots.take(ctx, "4-my-learning-phone")
	checkAccessibility(t, ctx, "My learning on a phone")
	run("desktop width", chromedp.EmulateViewport(1280, 800))

	run("request the certificate", chromedp.Click(chromedp.CSS(`main form[action="/learn/certificates"] button`)))
	var pdfURL string
	seenPending := false
	for deadline := time.Now().Add(30 * time.Second); pdfURL == "" && time.Now().Before(deadline); {
		select {
		case pdfURL = <-pdfs:
			continue
		case <-time.After(500 * time.Millisecond):
		}
		// Pending: the page offers "Check again" (no timed refresh); the learner clicks it.
		again, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector('main a.button[href^="/learn/certificates/"]')`))
		if err == nil && again {
			if !seenPending {
				seenPending = true
				shots.take(ctx, "5-certificate-pending")
				checkAccessibility(t, ctx, "certificate page")
			}
			run("check again", chromedp.Click(chromedp.CSS(`main a.button[href^="/learn/certificates/"]`)))
		}
	}
	if !strings.HasPrefix(pdfURL, origin+"/") {
		t.Fatalf("certificate PDF served from %q, want a link on %s", pdfURL, origin)
	}
	if pdf := waitForDownload(t, downloads); !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Errorf("downloaded certificate is not a PDF: %.40q", pdf)
	}

	run("back to My learning", chromedp.Navigate(origin+"/learn"), chromedp.WaitVisible(chromedp.CSS("header form.logout button")))
	run("sign out", chromedp.Click(chromedp.CSS("header form.logout button")), chromedp.WaitVisible(chromedp.CSS("main a.button")))
	loc = read("location", chromedp.Location())
	if loc != origin+"/login" {
		t.Errorf("after sign-out at %s, want %s/login", loc, origin)
	}
	shots.take(ctx, "6-signed-out")
	run("My learning after sign-out", chromedp.Navigate(origin+"/learn"), chromedp.WaitVisible(chromedp.CSS("main a.button")))
	loc = read("location", chromedp.Location())
	if !strings.HasPrefix(loc, origin+"/login") {
		t.Errorf("My learning after sign-out went to %s, want the login page", loc)
	}
	u, err := store.GetUser(context.Background(), tdb, "alice")
	if err != nil || u.CurrentSignInAt == nil {
		t.Errorf("current_sign_in_at after the browser sign-in: %v, %v", u.CurrentSignInAt, err)
	}

	// dora signs in with her password and must choose a new one first.
	run("password sign-in", chromedp.SendKeys(chromedp.ID("user_name"), "dora"), chromedp.SendKeys(chromedp.ID("password"), "Old9secret"),
		chromedp.Submit(chromedp.ID("password")), chromedp.WaitVisible(chromedp.ID("new_password")))
	if loc = read("location", chromedp.Location()); loc != origin+"/password" {
		t.Errorf("a flagged password sign-in landed on %s, want %s/password", loc, origin)
	}
	shots.take(ctx, "7-new-password")
	checkAccessibility(t, ctx, "new password page")
	run("choose a new password", chromedp.SendKeys(chromedp.ID("new_password"), "New9secret"),
		chromedp.SendKeys(chromedp.ID("password_confirmation"), "New9secret"), chromedp.Submit(chromedp.ID("password_confirmation")),
		chromedp.WaitVisible(chromedp.ID("topics")))
	if loc = read("location", chromedp.Location()); loc != origin+"/learn" {
		t.Errorf("after the new password at %s, want %s/learn", loc, origin)
	}
	if d, err := store.GetUser(context.Background(), tdb, "dora"); err != nil || d.ForcePwdResetNextLogin {
		t.Errorf("dora's force_pwd_reset_next_login after the new password: %v, %v", d.ForcePwdResetNextLogin, err)
	}
}

// seedForcedPasswordUser creates user name with password pw whose record
// asks for a new password at the next sign-in.
func seedForcedPasswordUser(t *testing.T, tdb *store.TenantDB, name, pw string) {
	t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	hs, first, last, tz, email, on := string(hash), "Dora", name, "UTC", name+"@example.test", true
	if _, err := store.CreateUser(context.Background(), tdb, learngate.UserInput{UserName: &name, FirstName: &first, LastName: &last,
		Email: &email, Timezone: &tz, PasswordHash: &hs, ForcePwdResetNextLogin: &on}, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// waitForDownload returns the first file Chromium finished downloading
// into dir.
func waitForDownload(t *testing.T, dir string) []byte {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".crdownload") {
				if raw, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && len(raw) > 0 {
					return raw
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no finished download in %s", dir)
	return nil
}
