package scim

import "testing"

func TestRewriteEntraValuePaths(t *testing.T) {
	for in, want := range map[string]string{
		`emails[type eq "work"].value eq "a@b.c"`:                `emails[type eq "work" and value eq "a@b.c"]`,
		`emails[type eq "work"].value pr`:                        `emails[type eq "work" and value pr]`,
		`emails[type eq "a].b"].value eq "x" and active eq true`: `emails[type eq "a].b" and value eq "x"] and active eq true`,
		`emails[type eq "work" or primary eq true].value co "x"`: `(emails[type eq "work" or primary eq true] and emails[value co "x"])`,
		`userName eq "a[b].c eq d"`:                              `userName eq "a[b].c eq d"`,
		`emails[type eq "work"]`:                                 `emails[type eq "work"]`,
	} {
		if got := rewriteEntraValuePaths(in); got != want {
			t.Errorf("rewrite(%s) = %s, want %s", in, got, want)
		}
		if _, err := ParseFilter(in); err != nil {
			t.Errorf("ParseFilter(%s): %v", in, err)
		}
	}
}

func TestLanguage(t *testing.T) {
	for in, want := range map[string]string{"en-US": "en", "en_US": "en", "FR": "fr", "zh-Hans-CN": "zh-Hans", "hi-IN": "hi-IN", "xx-YY": ""} {
		got, ok := Language(in)
		if got != want || ok != (want != "") {
			t.Errorf("Language(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
