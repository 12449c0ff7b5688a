package importer

import (
	"context"
	"errors"
	"io"
	"sort"
	"time"

	"learngate"
	"learngate/records"
	"learngate/store"
)

// KnowledgeColumns is the header of an external knowledge import's errors file.
var KnowledgeColumns = []string{"row", "user_name", "error_reason"}

// KnowledgeFormat is the format of an external knowledge file: its columns
// are the flat request fields (records.IsKnowledgeField), user_name required.
func KnowledgeFormat(delimiter rune) Format {
	return Format{Required: []string{"user_name"}, Known: records.IsKnowledgeField, Delimiter: delimiter}
}

// KnowledgeReport is the outcome of an external knowledge import. Records
// are only ever created, as by the batch endpoint.
type KnowledgeReport struct {
	Rows    int
	Chunks  int
	Created int
	// Errors counts the rows refused, each written to the errors file.
	Errors  int
	refused []refusal
}

// refusal is a row's problem, held until its chunk is saved so that the
// errors file lists problems in row order.
type refusal struct {
	row    Row
	reason string
}

// pendingKnowledge is a row that parsed, waiting for its chunk.
type pendingKnowledge struct {
	row Row
	in  learngate.KnowledgeBatchRow
}

// ImportKnowledge creates the records of src in the tenant t (whose handle
// is tdb), ChunkSize rows at a time. The batch endpoint is all or nothing;
// an import instead saves the good rows and reports the bad ones: each row
// of a chunk is parsed first (records.KnowledgeBatchRows) and a row that
// does not parse is left out; the others are created together by
// store.BatchCreateExternalKnowledges. When the store refuses them because
// of one record (an unknown user or category, a field its type does not
// take), that record is left out and the others are saved again. Each
// problem is written to errs, in row order, as row, user_name,
// error_reason. An error is returned only for a failure that is not a
// record's (the database failed); the chunks before it stay saved.
func ImportKnowledge(ctx context.Context, tdb *store.TenantDB, t learngate.Tenant, src *Source, errs *ErrorsFile, opts Options) (KnowledgeReport, error) {
	var rep KnowledgeReport
	today := records.TenantToday(t.Timezone, opts.now())
	chunk := make([]Row, 0, ChunkSize)
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		if err := rep.saveChunk(ctx, tdb, chunk, today, errs, opts.now()); err != nil {
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

// saveChunk parses the rows of chunk and creates the records of those that
// parse, leaving out each record the store names as the cause of a refusal.
func (rep *KnowledgeReport) saveChunk(ctx context.Context, tdb *store.TenantDB, chunk []Row, today time.Time,
	errs *ErrorsFile, now time.Time) error {
	var pending []pendingKnowledge
	for _, row := range chunk {
		parsed := records.KnowledgeBatchRows([]any{row.Fields}, today)[0]
		if parsed.Err != nil {
			rep.refuse(row, parsed.Err)
			continue
		}
		pending = append(pending, pendingKnowledge{row: row, in: parsed})
	}
	for len(pending) > 0 {
		rows := make([]learngate.KnowledgeBatchRow, len(pending))
		for i, p := range pending {
			rows[i] = p.in
		}
		res, err := store.BatchCreateExternalKnowledges(ctx, tdb, rows, now)
		if err == nil {
			rep.Created += res.Created
			break
		}
		var e *learngate.Error
		if !errors.As(err, &e) || e.Record == nil || e.Record.Index < 0 || e.Record.Index >= len(pending) {
			return notSaved(chunk, err)
		}
		i := e.Record.Index
		rep.refuse(pending[i].row, err)
		pending = append(pending[:i], pending[i+1:]...)
	}
	rep.Rows += len(chunk)
	rep.Chunks++
	return rep.writeRefused(errs)
}

// refuse holds the problem of a row that cannot be saved.
func (rep *KnowledgeReport) refuse(row Row, err error) {
	rep.Errors++
	rep.refused = append(rep.refused, refusal{row: row, reason: learngate.ErrorMessage(err)})
}

// writeRefused writes the problems held, in row order, to errs.
func (rep *KnowledgeReport) writeRefused(errs *ErrorsFile) error {
	sort.SliceStable(rep.refused, func(i, j int) bool { return rep.refused[i].row.Number < rep.refused[j].row.Number })
	for _, r := range rep.refused {
		if err := errs.Add(r.row.Number, r.row.String("user_name"), r.reason); err != nil {
			return err
		}
	}
	rep.refused = rep.refused[:0]
	return nil
}
