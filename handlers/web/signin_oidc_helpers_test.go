package web

import (
	"context"
	"learngate"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"golang.org/x/text/language"

	"learngate/store"
	"learngate/tenant"
)

// A real OpenID provider for the sign-in tests: zitadel/oidc's example
// server (package op with its in-memory storage and login form), on
// 127.0.0.1, with clients for two tenants.

// testIdP is a running provider.
type testIdP struct {
	issuer string
	// logouts counts the valid end_session requests (RP-initiated logout).
	logouts atomic.Int64
}

// idpUsers are the provider's accounts; every password is "verysecure".
type idpUsers map[string]*storage.User

func (u idpUsers) GetUserByID(id string) *storage.User { return u[id] }
func (u idpUsers) GetUserByUsername(name string) *storage.User {
	for _, x := range u {
		if x.Username == name {
			return x
		}
	}
	return nil
}
func (u idpUsers) ExampleClientID() string { return "service" }

// startIdP runs the provider with a web client per tenant host:
// "<slug>-client", secret "<slug>-secret".
func startIdP(t *testing.T, slugs ...string) *testIdP {
	t.Helper()
	return startIdPFor(t, "", slugs...)
}

// startIdPFor is startIdP for a node that also listens on appPort (when
// not empty): each client may be sent back to its host with that port.
func startIdPFor(t *testing.T, appPort string, slugs ...string) *testIdP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	idp := &testIdP{issuer: "http://" + ln.Addr().String()}
	user := func(id, name string) *storage.User {
		return &storage.User{ID: id, Username: name, Password: "verysecure", FirstName: "Ada", LastName: strings.ToUpper(id[:1]) + id[1:],
			Email: name, EmailVerified: true, PreferredLanguage: language.English}
	}
	users := idpUsers{"alice": user("alice", "alice@example.test"), "bob": user("bob", "bob@example.test"),
		"carol": user("carol", "carol@example.test")}
	clients := map[string]*storage.Client{}
	for _, slug := range slugs {
		redirects := []string{"http://" + slug + ".learngate.localhost/sso/oidc/callback"}
		if appPort != "" {
			redirects = append(redirects, "http://"+slug+".learngate.localhost:"+appPort+"/sso/oidc/callback",
				"https://"+slug+".learngate.localhost:"+appPort+"/sso/oidc/callback")
		}
		c := storage.WebClient(slug+"-client", slug+"-secret", redirects...)
		clients[c.GetID()] = c
	}
	st := storage.NewStorageWithClients(users, clients)
	op := exampleop.SetupServer(idp.issuer, st, nil, false)
	// The example provider registers no post-logout redirect URI and keeps
	// no session of its own. Here a successful login sets the provider's
	// session cookie (idpSessionCookie), and its end_session_endpoint ends
	// it and sends the browser back to a tenant host's /login.
	logoutTo := regexp.MustCompile(`^https?://[a-z0-9-]+\.learngate\.localhost(:[0-9]+)?/login$`)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login/username" && r.Method == http.MethodPost {
			op.ServeHTTP(idpLoginWatcher{w}, r)
			return
		}
		if r.URL.Path != "/end_session" {
			op.ServeHTTP(w, r)
			return
		}
		to := r.URL.Query().Get("post_logout_redirect_uri")
		if r.URL.Query().Get("id_token_hint") == "" || !logoutTo.MatchString(to) {
			http.Error(w, "invalid logout request", http.StatusBadRequest)
			return
		}
		idp.logouts.Add(1)
		http.SetCookie(w, &http.Cookie{Name: idpSessionCookie, Value: "", Path: "/", MaxAge: -1})
		http.Redirect(w, r, to, http.StatusFound)
	})
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return idp
}

// idpSessionCookie is the test provider's session cookie.
const idpSessionCookie = "idp_session"

// idpLoginWatcher sets the provider's session cookie on a login that
// succeeds (the login form's answer is then a redirect).
type idpLoginWatcher struct{ http.ResponseWriter }

func (w idpLoginWatcher) WriteHeader(code int) {
	if code == http.StatusFound || code == http.StatusSeeOther {
		http.SetCookie(w.ResponseWriter, &http.Cookie{Name: idpSessionCookie, Value: "signed-in", Path: "/", HttpOnly: true})
	}
	w.ResponseWriter.WriteHeader(code)
}

// configure sets slug's OIDC client on idp through the ops API.
func (h *harness) configureSSO(t *testing.T, idp *testIdP, slug string, jit bool) {
	t.Helper()
	secret := slug + "-secret"
	if _, err := h.registry.SetSSO(context.Background(), slug, tenant.SSOInput{Protocol: "oidc", Issuer: idp.issuer,
		ClientID: slug + "-client", ClientSecret: &secret, JIT: &jit}); err != nil {
		t.Fatal(err)
	}
}

// browser is one learner's browser: the session cookie per host for
// learngate (served in-process) and a cookie jar for the provider.
type browser struct {
	t       *testing.T
	app     http.Handler
	cookies map[string]string // host → lg_session
	// others are learngate's other cookies per host (the anonymous CSRF
	// cookie, the sealed sign-in flows): host → name → value.
	others map[string]map[string]string
	idp    *http.Client
	last   *http.Cookie
	// remote is the browser's address (host:port); do's default when "".
	remote string
}

func newBrowser(t *testing.T, app http.Handler) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, app: app, cookies: map[string]string{}, others: map[string]map[string]string{},
		idp: &http.Client{Jar: jar, Timeout: 10 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// do sends a request to learngate at host, with and then keeping the
// session cookie of that host.
func (b *browser) do(method, host, target string, form url.Values) *httptest.ResponseRecorder {
	b.t.Helper()
	r := request{method: method, host: host, path: target, headers: map[string]string{}, remote: b.remote}
	if form != nil {
		r.body = form.Encode()
		r.headers["Content-Type"] = "application/x-www-form-urlencoded"
	}
	var sent []string
	if v := b.cookies[host]; v != "" {
		sent = append(sent, sessionCookie+"="+v)
	}
	for name, v := range b.others[host] {
		sent = append(sent, name+"="+v)
	}
	if len(sent) > 0 {
		r.headers["Cookie"] = strings.Join(sent, "; ")
	}
	w := do(b.app, r)
	b.keep(host, w)
	return w
}

// keep stores the cookies learngate set on host (a negative MaxAge removes one).
func (b *browser) keep(host string, w *httptest.ResponseRecorder) {
	for _, ck := range w.Result().Cookies() {
		if ck.Name == sessionCookie {
			b.cookies[host] = ck.Value
			b.last = ck
			continue
		}
		if b.others[host] == nil {
			b.others[host] = map[string]string{}
		}
		if ck.MaxAge < 0 || ck.Value == "" {
			delete(b.others[host], ck.Name)
		} else {
			b.others[host][ck.Name] = ck.Value
		}
	}
}

var formID = regexp.MustCompile(`name="id" value="([^"]+)"`)

// atProvider follows the provider's redirects from authorize, signs in as
// username, and returns the URL the provider sends the browser back to.
func (b *browser) atProvider(authorize, username string) *url.URL {
	b.t.Helper()
	next := authorize
	for range 10 {
		resp, err := b.idp.Get(next)
		if err != nil {
			b.t.Fatalf("provider: %v", err)
		}
		body := readAll(resp)
		loc, _ := resp.Location()
		if resp.StatusCode == http.StatusOK {
			m := formID.FindStringSubmatch(body)
			if m == nil {
				b.t.Fatalf("provider page without login form: %s", body)
			}
			resp, err = b.idp.PostForm(resp.Request.URL.ResolveReference(&url.URL{Path: "/login/username"}).String(),
				url.Values{"id": {m[1]}, "username": {username}, "password": {"verysecure"}})
			if err != nil {
				b.t.Fatal(err)
			}
			readAll(resp)
			loc, _ = resp.Location()
		}
		if loc == nil {
			b.t.Fatalf("provider answered %d without redirect: %s", resp.StatusCode, body)
		}
		if strings.HasSuffix(loc.Host, ".learngate.localhost") {
			return loc
		}
		next = loc.String()
	}
	b.t.Fatal("too many provider redirects")
	return nil
}

func readAll(resp *http.Response) string {
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			return sb.String()
		}
	}
}

// start opens /sso/start on host and returns the provider URL it sends to.
func (b *browser) start(host, next string) string {
	b.t.Helper()
	w := b.do(http.MethodGet, host, "/sso/start?next="+url.QueryEscape(next), nil)
	if w.Code != http.StatusSeeOther {
		b.t.Fatalf("start = %d %s", w.Code, w.Body.String())
	}
	return w.Header().Get("Location")
}

// callback delivers the provider's redirect to learngate at its host.
func (b *browser) callback(u *url.URL) *httptest.ResponseRecorder {
	return b.do(http.MethodGet, u.Host, u.RequestURI(), nil)
}

// signIn runs the whole flow on host as username and returns the callback's answer.
func (b *browser) signIn(host, username string) *httptest.ResponseRecorder {
	b.t.Helper()
	return b.callback(b.atProvider(b.start(host, "/learn"), username))
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf returns the CSRF token of a page.
func csrf(t *testing.T, page string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no csrf field in %s", page)
	}
	return m[1]
}

// seedLearner creates an active or inactive user with email name.
func seedLearner(t *testing.T, h *harness, slug, name string, active bool) learngate.User {
	t.Helper()
	tn, err := h.registry.Show(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	tdb, err := h.db.Tenant(tn.Schema)
	if err != nil {
		t.Fatal(err)
	}
	local, _, _ := strings.Cut(name, "@")
	first, last, tz := "Ada", local, "UTC"
	u, err := store.CreateUser(context.Background(), tdb, learngate.UserInput{UserName: &local, FirstName: &first, LastName: &last,
		Email: &name, Timezone: &tz, Active: &active}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// tenantHandle returns slug's store handle.
func tenantHandle(t *testing.T, h *harness, slug string) *store.TenantDB {
	t.Helper()
	tn, err := h.registry.Show(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	tdb, err := h.db.Tenant(tn.Schema)
	if err != nil {
		t.Fatal(err)
	}
	return tdb
}
