package web

import (
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"

	"learngate/records"
)

// The learner pages' message catalogue (golang.org/x/text/message):
// English, the keys themselves, and German. A learner sees the language of
// their user's `language` where a translation exists, else English.

// pageTranslations maps each translated language to its messages, by
// English text.
var pageTranslations = map[language.Tag]map[string]string{
	language.German: {
		"Sign in":                    "Anmelden",
		"Sign out":                   "Abmelden",
		"Sign in with %s":            "Mit %s anmelden",
		"My learning":                "Mein Lernen",
		"Signed in as %s":            "Angemeldet als %s",
		"Topics":                     "Themen",
		"Pathways":                   "Lernpfade",
		"Title":                      "Titel",
		"Status":                     "Status",
		"Due":                        "Fällig",
		"Overdue":                    "Überfällig",
		"Conquered":                  "Abgeschlossen",
		"Certificate":                "Zertifikat",
		"Download certificate":       "Zertifikat herunterladen",
		"No topics yet.":             "Noch keine Themen.",
		"No pathways yet.":           "Noch keine Lernpfade.",
		"External knowledge":         "Externes Wissen",
		"Type":                       "Art",
		"Provider":                   "Anbieter",
		"Obtained":                   "Erworben",
		"Expires":                    "Läuft ab",
		"No external knowledge yet.": "Noch kein externes Wissen.",
		"Training":                   "Schulung",
		"Qualification":              "Qualifikation",
		"License":                    "Lizenz",
		"Document":                   "Dokument",
		"Development Plan":           "Entwicklungsplan",
		"Your certificate is being prepared. It takes a few seconds.": "Ihr Zertifikat wird erstellt. Das dauert einige Sekunden.",
		"Check again":             "Erneut prüfen",
		"Back to My learning":     "Zurück zu Mein Lernen",
		"Sign in with a password": "Mit Passwort anmelden",
		"User name":               "Benutzername",
		"Password":                "Passwort",
		"Sign-in is not set up for this organisation. Please ask your administrator.": "Die Anmeldung ist für diese Organisation nicht eingerichtet. Bitte wenden Sie sich an Ihre Administration.",
		"Choose a new password": "Neues Passwort festlegen",
		"Your organisation asks you to choose a new password before you continue.": "Ihre Organisation bittet Sie, ein neues Passwort festzulegen, bevor Sie fortfahren.",
		"New password":       "Neues Passwort",
		"New password again": "Neues Passwort wiederholen",
		"8 to 72 characters, with at least one digit, one upper case and one lower case letter.": "8 bis 72 Zeichen, mit mindestens einer Ziffer, einem Groß- und einem Kleinbuchstaben.",
		"Save password": "Passwort speichern",
		"The two passwords differ. Please enter the same new password twice.":       "Die beiden Passwörter unterscheiden sich. Bitte geben Sie zweimal dasselbe neue Passwort ein.",
		"A password cannot be set for your account. Please ask your administrator.": "Für Ihr Konto kann kein Passwort festgelegt werden. Bitte wenden Sie sich an Ihre Administration.",
		records.PasswordRule: "Ungültiges Passwort: Es muss 8 bis 72 Zeichen lang sein und mindestens eine Ziffer, einen Groß- und einen Kleinbuchstaben enthalten.",
	},
}

// pageCatalog builds the catalogue once per Pages (New).
func pageCatalog() catalog.Catalog {
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	for tag, msgs := range pageTranslations {
		for key, text := range msgs {
			_ = b.SetString(tag, key, text) // SetString fails only for malformed messages
		}
	}
	return b
}

// pageLanguage returns the tag of a user's language when the catalogue
// translates it, else English.
func pageLanguage(code string) language.Tag {
	tag, err := language.Parse(code)
	if err != nil {
		return language.English
	}
	for t := range pageTranslations {
		if base, _ := tag.Base(); base.String() == t.String() {
			return t
		}
	}
	return language.English
}

// translator returns the Sprintf of lang over cat.
func translator(cat catalog.Catalog, lang language.Tag) func(string, ...any) string {
	p := message.NewPrinter(lang, message.Catalog(cat))
	return func(key string, args ...any) string { return p.Sprintf(key, args...) }
}
