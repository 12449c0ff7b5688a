package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
)

// MaxBatchUsers is the most people one batch save may carry.
const MaxBatchUsers = 100

// Invitation policies of a batch save (its send_invitations field).
const (
	// InviteNone invites nobody (send_invitations "no" or omitted).
	InviteNone = "no"
	// InviteNew invites the users the batch created.
	InviteNew = "new"
	// InviteAll invites every user the batch saved.
	InviteAll = "all"
)

// BatchSaveUsers creates or updates the users of rows in one transaction:
// a row that fails leaves no trace and is reported in the result's
// error_list; the others are saved. A user_name of no existing user (in
// any case) creates the user; an existing one updates the given fields.
// Rows run in order, so a later row may update a user an earlier row
// created, and a row clashes with the user_names, emails and lms ids of
// the rows before it. Counters follow the spec: created, updated and
// unchanged count the users the batch attempted to create, update or
// leave unchanged, including those that then failed. invite is
// InviteNone, InviteNew or InviteAll. Each saved row's enrolment field
// groups are then applied (see batchReport.applyEnrolments); the codes and
// skills of the whole batch are looked up once. The events of the users
// and enrolments the batch changed are recorded at its end, in the order
// of the changes, with each resource as the batch left it. Only failures
// of the database itself (or a bug) are returned as an error, and then
// nothing is saved.
//
// The users are saved set-based (docs/decisions.md, "Users batch save"):
// planBatch loads what the whole batch needs with a fixed number of
// queries and decides every row in Go, in order, as saving the rows one by
// one would (a user named by several rows included); writeBatch then
// writes all users, links and invitations with a fixed number of
// statements. Enrolment codes, of topics and pathways alike, are applied
// set-based too (codeSet).
// When a write hits a unique violation (a concurrent transaction took a
// user_name, email or lms id since the look-ups) the transaction is rolled
// back and the batch planned and saved again, at most maxBatchAttempts
// times in all.
func BatchSaveUsers(ctx context.Context, tdb *TenantDB, rows []learngate.BatchRow, invite string, now time.Time) (learngate.BatchResult, error) {
	rep, err := saveUsersBatch(ctx, tdb, rows, invite, now)
	return rep.BatchResult, err
}

// saveUsersBatch is BatchSaveUsers, answering with what the batch changed
// beside its result.
func saveUsersBatch(ctx context.Context, tdb *TenantDB, rows []learngate.BatchRow, invite string, now time.Time) (batchReport, error) {
	for attempt := 1; ; attempt++ {
		res, err := tdb.batchSave(ctx, rows, invite, now)
		if !isUniqueViolation(err) || attempt == maxBatchAttempts {
			return res, err
		}
	}
}

// maxBatchAttempts bounds the attempts of a users batch whose writes keep
// clashing with concurrent transactions.
const maxBatchAttempts = 3

// batchSave is one attempt of BatchSaveUsers, in one transaction.
func (t *TenantDB) batchSave(ctx context.Context, rows []learngate.BatchRow, invite string, now time.Time) (batchReport, error) {
	var res batchReport
	err := t.Tx(ctx, func(tx *sqlx.Tx) error {
		res = batchReport{BatchResult: learngate.BatchResult{ErrorList: []learngate.BatchError{}}}
		var reqs []learngate.EnrolmentRequest
		for _, row := range rows {
			reqs = append(reqs, row.Enrolments...)
		}
		cat, err := lookupEnrolmentCatalog(ctx, tx, reqs)
		if err != nil {
			return err
		}
		if err := t.batchSaveSetBased(ctx, tx, &res, rows, cat, invite, now); err != nil {
			return err
		}
		res.Errors = len(res.ErrorList)
		return t.recordChanges(ctx, tx, res.changed, now)
	})
	if err != nil {
		return batchReport{BatchResult: learngate.BatchResult{ErrorList: []learngate.BatchError{}}}, err
	}
	return res, nil
}

// batchReport is a batch's result as it is built, with what the batch
// changed.
type batchReport struct {
	learngate.BatchResult
	// changed are what the batch saved, in order: users and enrolments.
	// Their events are recorded at the end of the batch.
	changed changes
}

// batchSaveSetBased plans the batch, writes it and reports it into res.
// A unique violation of the writes is returned as the error (see
// isUniqueViolation).
func (t *TenantDB) batchSaveSetBased(ctx context.Context, tx *sqlx.Tx, res *batchReport, rows []learngate.BatchRow,
	cat enrolmentCatalog, invite string, now time.Time) error {
	plan, err := planBatch(ctx, tx, rows, invite, now)
	if err != nil {
		return err
	}
	if hook, ok := ctx.Value(batchWriteHookKey{}).(func()); ok {
		hook()
	}
	if err := t.writeBatch(ctx, tx, &plan, now); err != nil {
		return err
	}
	res.Created, res.Updated, res.Unchanged = plan.created, plan.updated, plan.unchanged
	res.InvitationsSent, res.InvitationsFailed = plan.sent, plan.failed
	apply, set, err := batchGroupApplier(ctx, tx, cat, rows, plan, now)
	if err != nil {
		return err
	}
	for i, p := range plan.rows {
		reported := len(res.ErrorList)
		if p.err != nil {
			if err := res.rowFailed(rows[i], p.storedEmail, p.err); err != nil {
				return err
			}
		} else {
			if p.change != userUnchanged {
				res.changed.add(kindUser, p.user.id, string(p.change))
			}
			user := enrolmentUser{ID: p.user.id, Name: p.name}
			if err := res.applyEnrolments(cat, user, rows[i].Enrolments, now, apply); err != nil {
				return err
			}
		}
		for j := reported; j < len(res.ErrorList); j++ {
			res.ErrorList[j].Row = i
		}
	}
	return set.write(ctx, tx, res.changed)
}

// batchGroupApplier returns how the batch's enrolment groups are applied:
// set-based, by the codeSet it returns (written once every row is
// applied), loaded for the codes of the rows plan saved.
func batchGroupApplier(ctx context.Context, tx *sqlx.Tx, cat enrolmentCatalog, rows []learngate.BatchRow, plan batchPlan,
	now time.Time) (groupApplier, *codeSet, error) {
	pairs := newCodePairs()
	for i, p := range plan.rows {
		if p.err != nil {
			continue
		}
		for _, r := range rows[i].Enrolments {
			if t, ok := cat.targets[strings.ToLower(r.Code)]; ok {
				pairs.add(p.user.id, p.user.old == nil, t)
			}
		}
	}
	set, err := loadCodeSet(ctx, tx, pairs, namesPathways(cat, rows), now)
	if err != nil {
		return nil, nil, err
	}
	return set.apply, set, nil
}

// applyEnrolments applies a saved row's enrolment field groups with apply: each
// applied one counts in enrolled, each problem is an error_list entry with
// only error_reason. A group with a problem writes nothing (see
// applyEnrolments), so the user row and the row's other enrolments stay.
// The enrolments changed join res.changed, after the row's user.
func (res *batchReport) applyEnrolments(cat enrolmentCatalog, user enrolmentUser, reqs []learngate.EnrolmentRequest, now time.Time,
	apply groupApplier) error {
	refs, problems, err := applyGroups(cat, user, reqs, now, &res.changed, apply)
	if err != nil {
		return err
	}
	res.Enrolled += len(refs)
	for _, p := range problems {
		reason := fmt.Sprintf("Enrolment for user '%s' was not applied: %s", user.Name, p.Message)
		if p.Code != "" {
			reason = fmt.Sprintf("Enrolment code '%s' for user '%s' was not applied: %s", p.Code, user.Name, p.Message)
		}
		res.ErrorList = append(res.ErrorList, learngate.BatchError{Reason: reason})
	}
	return nil
}

// rowFailed records a row's error in the error list when it is a fault of
// the row (Invalid or Unprocessable) and returns nil; any other error is
// returned, failing the batch. storedEmail is the existing user's email,
// reported when the row sent none.
func (res *batchReport) rowFailed(row learngate.BatchRow, storedEmail string, err error) error {
	var e *learngate.Error
	if !errors.As(err, &e) || (e.Code != learngate.Invalid && e.Code != learngate.Unprocessable) {
		return err
	}
	reason := e.Message
	if len(e.Details) > 1 {
		reason = strings.Join(e.Details, "; ")
	}
	userName, email := row.UserName, row.Email
	if email == "" {
		email = storedEmail
	}
	res.ErrorList = append(res.ErrorList, learngate.BatchError{UserName: &userName, Email: &email, Reason: reason})
	return nil
}
