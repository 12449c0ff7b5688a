package main

// The CSV import commands (learngate users import, learngate external-knowledge
// import) around package importer, and the progress bar they and migrate draw.

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"learngate"
	"learngate/importer"
	"learngate/input"
	"learngate/store"
)

// exitPartial is the exit code of an import that saved the good rows and
// reported bad ones: the file was read, but not everything in it was saved.
const exitPartial = 2

// exitError ends the process with its exit code; main prints its message
// like any other error's.
type exitError struct {
	code int
	msg  string
}

// Error implements the error interface.
func (e *exitError) Error() string { return e.msg }

// importFlags are the flags every import command takes.
type importFlags struct {
	tenant    string
	delimiter string
}

func (f *importFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.tenant, "tenant", "", "slug of the tenant to import into (required)")
	cmd.Flags().StringVar(&f.delimiter, "delimiter", ",", `cell separator: one character, or "tab"`)
	_ = cmd.MarkFlagRequired("tenant")
}

// comma returns the delimiter as a rune, refusing what encoding/csv cannot use.
func (f *importFlags) comma() (rune, error) {
	d := f.delimiter
	if strings.EqualFold(d, "tab") || d == `\t` {
		d = "\t"
	}
	r, size := utf8.DecodeRuneInString(d)
	if size == 0 || size != len(d) || r == '"' || r == '\r' || r == '\n' || r == utf8.RuneError {
		return 0, fmt.Errorf(`--delimiter must be one character (or "tab"), got %q`, f.delimiter)
	}
	return r, nil
}

// importTarget is what every import needs: the tenant, its handle and the
// opened file.
type importTarget struct {
	tenant learngate.Tenant
	tdb    *store.TenantDB
	src    *importer.Source
	errs   *importer.ErrorsFile
	bar    *progressBar
}

// openImport resolves the tenant and opens and checks the file, telling
// stderr about ignored columns. The caller closes the source.
func openImport(ctx context.Context, cmd *cobra.Command, a *app, slug, path, what string,
	format importer.Format, errorColumns []string) (importTarget, error) {
	var it importTarget
	t, err := a.registry.Show(ctx, slug)
	if err != nil {
		return it, err
	}
	tdb, err := a.db.Tenant(t.Schema)
	if err != nil {
		return it, err
	}
	errs := importer.NewErrorsFile(path, errorColumns...)
	if err := errs.Check(); err != nil {
		return it, err
	}
	src, err := importer.Open(path, format)
	if err != nil {
		_ = errs.Close() // removes the empty file Check made
		return it, err
	}
	for _, col := range src.Ignored() {
		fmt.Fprintf(cmd.ErrOrStderr(), "learngate: %s: ignoring %s: not %s\n", path, columnLabel(col), what)
	}
	bar := newProgressBar(cmd.ErrOrStderr(), "importing "+path, "rows", src.Rows())
	return importTarget{tenant: t, tdb: tdb, src: src, errs: errs, bar: bar}, nil
}

// columnLabel names an ignored column in a warning.
func columnLabel(col string) string {
	if strings.HasPrefix(col, "column ") {
		return col
	}
	return "column " + col
}

// finishImport closes the errors file and turns the outcome into the
// command's result: a failure that stopped the import (exit code 1, the
// chunks saved before it stay saved), rows with problems (exit code 2), or nil.
func finishImport(it importTarget, importErr error) error {
	it.bar.Finish()
	closeErr := it.errs.Close()
	if importErr != nil {
		// Not wrapped: main prints the whole chain, not only a store message.
		return fmt.Errorf("import stopped: %s", importErr.Error())
	}
	if closeErr != nil {
		return closeErr
	}
	if n := it.errs.Count(); n > 0 {
		return &exitError{code: exitPartial, msg: fmt.Sprintf("%d %s not saved; see %s", n, plural(n, "problem", "problems"), it.errs.Path())}
	}
	return nil
}

// plural picks the word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// errorsLine is the report's last line.
func errorsLine(w io.Writer, it importTarget) {
	if n := it.errs.Count(); n > 0 {
		fmt.Fprintf(w, "errors: %d (listed in %s)\n", n, it.errs.Path())
		return
	}
	fmt.Fprintln(w, "errors: 0")
}

// usersCommand is `learngate users`, with `import`.
func usersCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "users", Short: "Work on a tenant's users from the shell"}
	var flags importFlags
	var invite, policy string
	imp := &cobra.Command{
		Use:   "import --tenant SLUG FILE.csv",
		Short: "Create or update a tenant's users from a CSV file",
		Long: `Create or update a tenant's users from a CSV file whose header names the fields of
POST /papi/users/batch_save: user_name (required), first_name, last_name, email, ...,
role_1..role_5, groups, goals, X-<custom field>, enrolment_code_1..5 and their
_due_date, _conquered_date, _certified_date and _skill_attained columns.
An empty cell leaves the field as it is; a cell holding [clear] clears it.
Rows are saved 100 at a time with the batch save's rules. Problems are listed in
FILE.csv.errors.csv. Exit code: 0 all saved, 2 some rows or enrolments not saved, 1 failure.`,
		Args: cobra.ExactArgs(1),
		PreRunE: func(*cobra.Command, []string) error {
			if _, err := flags.comma(); err != nil {
				return err
			}
			var err error
			if policy, err = input.OneOf("send-invitations", invite, []string{store.InviteNew, store.InviteAll, store.InviteNone}); err != nil {
				return fmt.Errorf("--send-invitations must be new, all or no, got %q", invite)
			}
			return nil
		},
	}
	imp.RunE = withApp(func(ctx context.Context, a *app, args []string) error {
		comma, _ := flags.comma()
		it, err := openImport(ctx, imp, a, flags.tenant, args[0], "a user field",
			importer.UsersFormat(comma), importer.UserColumns)
		if err != nil {
			return err
		}
		defer it.src.Close()
		rep, err := importer.ImportUsers(ctx, it.tdb, it.tenant, it.src, it.errs,
			importer.Options{Invite: policy, Progress: it.bar.Update})
		result := finishImport(it, err)
		out := imp.OutOrStdout()
		fmt.Fprintf(out, "rows: %d (%d %s)\n", rep.Rows, rep.Chunks, plural(rep.Chunks, "chunk", "chunks"))
		fmt.Fprintf(out, "created: %d\nupdated: %d\nunchanged: %d\nenrolled: %d\n", rep.Created, rep.Updated, rep.Unchanged, rep.Enrolled)
		fmt.Fprintf(out, "invitations sent: %d\ninvitations failed: %d\n", rep.InvitationsSent, rep.InvitationsFailed)
		errorsLine(out, it)
		return result
	})
	flags.register(imp)
	imp.Flags().StringVar(&invite, "send-invitations", store.InviteNone, "invite the users created (new), every user saved (all) or nobody (no)")
	cmd.AddCommand(imp)
	return cmd
}

// knowledgeCommand is `learngate external-knowledge`, with `import`.
func knowledgeCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "external-knowledge", Short: "Work on a tenant's external knowledge from the shell"}
	var flags importFlags
	imp := &cobra.Command{
		Use:   "import --tenant SLUG FILE.csv",
		Short: "Create a tenant's external knowledge records from a CSV file",
		Long: `Create external knowledge records from a CSV file whose header names the request
fields of POST /papi/external_knowledges/batch_save: user_name (required), type or
knowledge_type, title, provider, date_obtained, ..., category_N_name, category_N_points,
category_N_minutes (N 1..3) and skills_attained. Every row creates a record.
Good rows are saved 100 at a time; a bad row is left out and listed in
FILE.csv.errors.csv. Exit code: 0 all saved, 2 some rows not saved, 1 failure.`,
		Args: cobra.ExactArgs(1),
		PreRunE: func(*cobra.Command, []string) error {
			_, err := flags.comma()
			return err
		},
	}
	imp.RunE = withApp(func(ctx context.Context, a *app, args []string) error {
		comma, _ := flags.comma()
		it, err := openImport(ctx, imp, a, flags.tenant, args[0], "an external knowledge field",
			importer.KnowledgeFormat(comma), importer.KnowledgeColumns)
		if err != nil {
			return err
		}
		defer it.src.Close()
		rep, err := importer.ImportKnowledge(ctx, it.tdb, it.tenant, it.src, it.errs, importer.Options{Progress: it.bar.Update})
		result := finishImport(it, err)
		out := imp.OutOrStdout()
		fmt.Fprintf(out, "rows: %d (%d %s)\ncreated: %d\n", rep.Rows, rep.Chunks, plural(rep.Chunks, "chunk", "chunks"), rep.Created)
		errorsLine(out, it)
		return result
	})
	flags.register(imp)
	cmd.AddCommand(imp)
	return cmd
}

// The progress bar of the imports and of migrate.

// isTerminal reports whether w is a terminal (not a pipe, a file or
// /dev/null): progress is drawn only there.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// progressBar draws "label [#####-----]  50%  500/1000 rows  120 rows/s" on
// one line of a terminal, redrawn in place at most every redrawEvery.
// On anything else it draws nothing.
type progressBar struct {
	w        io.Writer
	label    string
	unit     string
	total    int
	tty      bool
	start    time.Time
	lastDraw time.Time
	drawn    bool
	now      func() time.Time
}

// redrawEvery limits how often the bar is drawn.
const redrawEvery = 100 * time.Millisecond

// barWidth is the number of cells of the bar.
const barWidth = 30

// newProgressBar returns a bar for total units of work written to w.
func newProgressBar(w io.Writer, label, unit string, total int) *progressBar {
	return &progressBar{w: w, label: label, unit: unit, total: total, tty: isTerminal(w), start: time.Now(), now: time.Now}
}

// Update shows done units of work finished.
func (p *progressBar) Update(done int) {
	if !p.tty {
		return
	}
	now := p.now()
	if p.drawn && done < p.total && now.Sub(p.lastDraw) < redrawEvery {
		return
	}
	p.lastDraw, p.drawn = now, true
	fmt.Fprint(p.w, "\r"+p.line(done, now.Sub(p.start))+"\x1b[K") // \x1b[K clears the rest of the line
}

// line renders the bar for done units after elapsed.
func (p *progressBar) line(done int, elapsed time.Duration) string {
	fraction := 1.0
	if p.total > 0 {
		fraction = float64(min(done, p.total)) / float64(p.total)
	}
	filled := int(fraction * barWidth)
	rate := ""
	if secs := elapsed.Seconds(); secs > 0 {
		rate = fmt.Sprintf("  %.0f %s/s", float64(done)/secs, p.unit)
	}
	return fmt.Sprintf("%s [%s%s] %3.0f%%  %d/%d %s%s", p.label, strings.Repeat("#", filled),
		strings.Repeat("-", barWidth-filled), fraction*100, done, p.total, p.unit, rate)
}

// Finish ends the bar's line, if one was drawn.
func (p *progressBar) Finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}
