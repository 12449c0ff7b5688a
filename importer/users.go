package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"learngate"
	"learngate/records"
	"learngate/store"
)

// UserColumns is the header of a users import's errors file.
var UserColumns = []string{"row", "user_name", "email", "error_reason"}

// UsersFormat is the format of a users file: its columns are the fields of
// a batch save row (records.IsUserBatchField), user_name required.
func UsersFormat(delimiter rune) Format {
	return Format{Required: []string{"user_name"}, Known: records.IsUserBatchField, Delimiter: delimiter}
}

// Options tune an import.
type Options struct {
	// Invite is the batch's send_invitations: store.InviteNone (the
	// default when empty), InviteNew or InviteAll. Users imports only.
	Invite string
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Progress, when set, is told the number of rows done after each chunk.
	Progress func(done int)
}

func (o Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

// UserReport is the outcome of a users import: the batch user result's
// counters summed over the chunks.
type UserReport struct {
	Rows              int
	Chunks            int
	Created           int
	Updated           int
	Unchanged         int
	Enrolled          int
	InvitationsSent   int
	InvitationsFailed int
	// Errors counts the problems written to the errors file, enrolment
	// problems included (the batch result's errors).
	Errors int
}

// ImportUsers saves the rows of src into the tenant t (whose handle is
// tdb), ChunkSize rows per store.BatchSaveUsers call: each chunk is one
// transaction in which a failing row leaves no trace and the others are
// saved, as in a batch save request. Each problem is written to errs as
// row, user_name, email, error_reason. An error is returned only when a
// chunk could not be saved at all (the database failed); the chunks before
// it stay saved and the report counts them.
func ImportUsers(ctx context.Context, tdb *store.TenantDB, t learngate.Tenant, src *Source, errs *ErrorsFile, opts Options) (UserReport, error) {
	invite := opts.Invite
	if invite == "" {
		invite = store.InviteNone
	}
	var rep UserReport
	chunk := make([]Row, 0, ChunkSize)
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		if err := rep.saveChunk(ctx, tdb, t, chunk, invite, errs, opts.now()); err != nil {
			return err
		}
		chunk = chunk[:0]
		if opts.Progress != nil {
			opts.Progress(rep.Rows)
		}
		return nil
	}
	for {
		row, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return rep, err
		}
		if chunk = append(chunk, row); len(chunk) == ChunkSize {
			if err := flush(); err != nil {
				return rep, err
			}
		}
	}
	return rep, flush()
}

// saveChunk saves one chunk and adds its outcome to the report.
func (rep *UserReport) saveChunk(ctx context.Context, tdb *store.TenantDB, t learngate.Tenant, chunk []Row,
	invite string, errs *ErrorsFile, now time.Time) error {
	people := make([]any, len(chunk))
	for i, r := range chunk {
		people[i] = r.Fields
	}
	res, err := store.BatchSaveUsers(ctx, tdb, records.UserBatchRows(people, t.Timezone), invite, now)
	if err != nil {
		return notSaved(chunk, err)
	}
	rep.Rows += len(chunk)
	rep.Chunks++
	rep.Created += res.Created
	rep.Updated += res.Updated
	rep.Unchanged += res.Unchanged
	rep.Enrolled += res.Enrolled
	rep.InvitationsSent += res.InvitationsSent
	rep.InvitationsFailed += res.InvitationsFailed
	for _, e := range res.ErrorList {
		row := chunk[e.Row]
		// Enrolment problems carry no user_name or email: the row's own.
		userName, email := row.String("user_name"), row.String("email")
		if e.UserName != nil {
			userName = *e.UserName
		}
		if e.Email != nil {
			email = *e.Email
		}
		if err := errs.Add(row.Number, userName, email, e.Reason); err != nil {
			return err
		}
		rep.Errors++
	}
	return nil
}

// notSaved is the error of a chunk the store refused as a whole.
func notSaved(chunk []Row, err error) error {
	return fmt.Errorf("the rows at lines %d to %d were not saved: %w", chunk[0].Number, chunk[len(chunk)-1].Number, err)
}
