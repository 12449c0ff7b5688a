package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
	"learngate/input"
)

// MaxBatchKnowledges is the most records one batch create may carry.
const MaxBatchKnowledges = 100

// CreateExternalKnowledge stores one new record, with its skills and
// categories, and returns it. in needs UserName, KnowledgeType and
// DateObtained, and a Title unless it is a Development Plan. NotFound
// ("not found") when no user has in.UserName; Invalid as applyKnowledgeInput and for an
// unknown category or one given twice. Its external_knowledge.created event
// is recorded in the same transaction.
func CreateExternalKnowledge(ctx context.Context, tdb *TenantDB, in learngate.KnowledgeInput, now time.Time) (learngate.ExternalKnowledge, error) {
	var k learngate.ExternalKnowledge
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		ids, err := createKnowledges(ctx, tx, []learngate.KnowledgeBatchRow{{UserName: in.UserName, In: in}}, false, now)
		if err != nil {
			return err
		}
		if k, err = knowledgeByID(ctx, tx, ids[0]); err != nil {
			return err
		}
		if err := tdb.RecordEvent(ctx, tx, EventExternalKnowledgeCreated, k, now); err != nil {
			return err
		}
		return markDue(ctx, tx, tdb.schema, DueListRank, now)
	})
	return k, err
}

// BatchCreateExternalKnowledges creates every record of rows, or none: the
// first record (by index) that fails fails the batch with its error, an
// Invalid *learngate.Error whose Record locates it; a user_name of no user
// is Invalid too. A fixed number of statements whatever the number of
// records: one lookup each for users, skills and categories, then one
// insert each for records, skills and categories, then the records' events
// (external_knowledge.created each, in order; see recordChanges).
func BatchCreateExternalKnowledges(ctx context.Context, tdb *TenantDB, rows []learngate.KnowledgeBatchRow, now time.Time) (learngate.KnowledgeBatchResult, error) {
	var res learngate.KnowledgeBatchResult
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		ids, err := createKnowledges(ctx, tx, rows, true, now)
		if err != nil {
			return err
		}
		res.Created = len(ids)
		var cs changes
		for _, id := range ids {
			cs.add(kindKnowledge, id, EventExternalKnowledgeCreated)
		}
		return tdb.recordChanges(ctx, tx, cs, now)
	})
	if err != nil {
		return learngate.KnowledgeBatchResult{}, err
	}
	return res, nil
}

// createKnowledges checks every row, in order, and then inserts them all,
// returning their ids in rows' order (ascending). A row's failure is
// returned located at it (atRecord). An unknown user is NotFound, or in a
// batch an Invalid error naming user_name.
func createKnowledges(ctx context.Context, tx *sqlx.Tx, rows []learngate.KnowledgeBatchRow, batch bool, now time.Time) ([]int64, error) {
	var userNames, skillNames, categoryNames []string
	for _, r := range rows {
		if r.Err != nil || r.In.UserName == nil {
			continue
		}
		userNames = append(userNames, normalUserName(*r.In.UserName))
		skillNames = append(skillNames, r.In.Skills...)
		for _, c := range r.In.Categories {
			categoryNames = append(categoryNames, c.Name)
		}
	}
	users, err := lookupUsers(ctx, tx, userNames)
	if err != nil {
		return nil, err
	}
	skills, err := lookupNames(ctx, tx, learngate.Skills, skillNames)
	if err != nil {
		return nil, err
	}
	categories, err := lookupNames(ctx, tx, learngate.Categories, categoryNames)
	if err != nil {
		return nil, err
	}

	records := make([]knowledgeRow, len(rows))
	links := make([]knowledgeLinks, len(rows))
	for i, r := range rows {
		if r.Err != nil {
			return nil, atRecord(r.Err, i, r.UserName)
		}
		in := r.In
		if in.UserName == nil || in.KnowledgeType == nil || in.DateObtained == nil {
			return nil, fmt.Errorf("create external knowledge: user_name, knowledge_type and date_obtained are required")
		}
		id, ok := users[normalUserName(*in.UserName)]
		if !ok {
			var err error = learngate.Errorf(learngate.NotFound, "not found")
			if batch {
				err = input.IllegalValue("user_name", *in.UserName)
			}
			return nil, atRecord(err, i, r.UserName)
		}
		records[i] = knowledgeRow{UserID: id}
		if err := applyKnowledgeInput(in, &records[i]); err != nil {
			return nil, atRecord(err, i, r.UserName)
		}
		if records[i].Title == "" {
			return nil, fmt.Errorf("create external knowledge: a title is required")
		}
		if links[i], err = resolveKnowledgeLinks(in, knowledgeLinks{}, skills, categories); err != nil {
			return nil, atRecord(err, i, r.UserName)
		}
	}
	if len(rows) == 0 {
		return []int64{}, nil
	}

	// The ids first, so that links can name their records without relying
	// on the order of an INSERT's RETURNING rows.
	var ids []int64
	err = tx.SelectContext(ctx, &ids, allocateKnowledgeIDsSQL, len(rows))
	if err != nil {
		return nil, fmt.Errorf("allocate external knowledge ids: %w", err)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	if err := insertKnowledges(ctx, tx, ids, records, now); err != nil {
		return nil, err
	}
	if err := insertKnowledgeLinks(ctx, tx, ids, links); err != nil {
		return nil, err
	}
	return ids, nil
}

// allocateKnowledgeIDsSQL takes $1 ids from the external_knowledges sequence.
// The benchmark's baseline
// (bench/baseline) keeps a copy.
const allocateKnowledgeIDsSQL = `SELECT nextval(pg_get_serial_sequence('external_knowledges', 'id'))
		FROM generate_series(1, $1)`

// insertKnowledgesSQL inserts records from one array per column: ids $1, users
// $2, types $3, the text columns $4-$15 (title .. development_focus), scores
// $16, total times $17; created_at and updated_at $18. The benchmark's baseline
// (bench/baseline) keeps a copy.
const insertKnowledgesSQL = `INSERT INTO external_knowledges (id, user_id, knowledge_type, title, code, provider,
			date_obtained, certificate_number, country_obtained, state_obtained, expires, qualification_level, notes,
			klass, development_focus, assessment_score, total_time, created_at, updated_at)
		SELECT id, user_id, knowledge_type, title, code, provider, date_obtained::date, certificate_number,
			country_obtained, state_obtained, expires::date, qualification_level, notes, klass, development_focus,
			assessment_score, total_time, $18, $18
		FROM unnest($1::bigint[], $2::bigint[], $3::smallint[], $4::text[], $5::text[], $6::text[], $7::text[],
			$8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
			$16::numeric[], $17::integer[])
		AS t(id, user_id, knowledge_type, title, code, provider, date_obtained, certificate_number, country_obtained,
			state_obtained, expires, qualification_level, notes, klass, development_focus, assessment_score, total_time)`

// insertKnowledges inserts records with the given ids in one statement,
// created_at and updated_at now.
func insertKnowledges(ctx context.Context, tx *sqlx.Tx, ids []int64, records []knowledgeRow, now time.Time) error {
	n := len(records)
	var users, types, totals pq.Int64Array
	var scores pq.Float64Array
	texts := make([][]*string, 12) // title .. development_focus, the text columns in insert order
	for _, r := range records {
		users = append(users, r.UserID)
		types = append(types, int64(r.KnowledgeType))
		scores = append(scores, r.AssessmentScore)
		totals = append(totals, int64(r.TotalTime))
		for j, v := range []*string{
			&r.Title, r.Code, &r.Provider, &r.DateObtained, &r.CertificateNumber, &r.CountryObtained,
			&r.StateObtained, r.Expires, r.QualificationLevel, &r.Notes, &r.Klass, r.DevelopmentFocus,
		} {
			if texts[j] == nil {
				texts[j] = make([]*string, 0, n)
			}
			texts[j] = append(texts[j], v)
		}
	}
	args := []any{pq.Int64Array(ids), users, types}
	for _, col := range texts {
		args = append(args, pq.GenericArray{A: col})
	}
	args = append(args, scores, totals, now.UTC().Truncate(time.Microsecond))
	_, err := tx.ExecContext(ctx, insertKnowledgesSQL, args...)
	if err != nil {
		return fmt.Errorf("insert external knowledge: %w", err)
	}
	return nil
}

// lookupUsersSQL finds the ids of the users called $1 (stored form). The benchmark's baseline
// (bench/baseline) keeps a copy.
const lookupUsersSQL = `SELECT user_name, id FROM users WHERE user_name = ANY($1)`

// lookupUsers maps each of names (stored form: lower case) that names a
// user to the user's id, in one query.
func lookupUsers(ctx context.Context, tx *sqlx.Tx, names []string) (map[string]int64, error) {
	found := make(map[string]int64, len(names))
	if len(names) == 0 {
		return found, nil
	}
	var rows []struct {
		Name string `db:"user_name"`
		ID   int64  `db:"id"`
	}
	if err := tx.SelectContext(ctx, &rows, lookupUsersSQL, pq.StringArray(names)); err != nil {
		return nil, fmt.Errorf("look up users: %w", err)
	}
	for _, r := range rows {
		found[r.Name] = r.ID
	}
	return found, nil
}

// atRecord returns err located at record index of a batch (see
// learngate.Error.Record); errors that are not *learngate.Error pass as they are.
func atRecord(err error, index int, userName *string) error {
	var e *learngate.Error
	if !errors.As(err, &e) {
		return err
	}
	out := *e
	out.Record = &learngate.RecordRef{Index: index, UserName: userName}
	return &out
}
