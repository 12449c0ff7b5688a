package importer

import (
	"context"
	"errors"
	"io"

	"learngate"
	"learngate/handlers"
	"learngate/store"
)

// KnowledgeColumns is the header of an external knowledge import's errors file.
var KnowledgeColumns = []string{"row", "user_name", "error_reason"}

// KnowledgeFormat is the format of an external knowledge file: its columns
// are the flat request fields (handlers.IsKnowledgeField), user_name required.
func KnowledgeFormat(delimiter rune) Format {
	return Format{Required: []string{"user_name"}, Known: handlers.IsKnowledgeField, Delimiter: delimiter}
}

// KnowledgeReport is the outcome of an external knowledge import. Records
// are only ever created, as by the batch endpoint.
type KnowledgeReport struct {
	Rows    int
	Chunks  int
	Created int
	// Errors counts the rows refused, each written to the errors file.
	Errors int
}

// pendingKnowledge is a row that parsed, waiting for its chunk.
type pendingKnowledge struct {
	row Row
	in  store.KnowledgeBatchRow
}

// ImportKnowledge creates the records of src in the tenant t (whose handle
// is tdb). The batch endpoint is all or nothing; an import instead saves
// the good rows and reports the bad ones: each row is parsed first
// (handlers.KnowledgeBatchRows), a row that does not parse is reported and
// left out, and the others are created ChunkSize at a time by
// store.BatchCreateExternalKnowledges. When the store refuses a chunk
// because of one record (an unknown user or category, a field its type
// does not take), that record is reported and the chunk is saved again
// without it. Each problem is written to errs as row, user_name,
// error_reason. An error is returned only for a failure that is not a
// record's (the database failed); the chunks before it stay saved.
func ImportKnowledge(ctx context.Context, tdb *store.TenantDB, t learngate.Tenant, src *Source, errs *ErrorsFile, opts Options) (KnowledgeReport, error) {
	var rep KnowledgeReport
	today := handlers.TenantToday(t.Timezone, opts.now())
	chunk := make([]pendingKnowledge, 0, ChunkSize)
	for {
		row, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return rep, err
		}
		rep.Rows++
		parsed := handlers.KnowledgeBatchRows([]any{row.Fields}, today)[0]
		if parsed.Err != nil {
			if err := rep.refuse(errs, row, parsed.Err); err != nil {
				return rep, err
			}
			continue
		}
		if chunk = append(chunk, pendingKnowledge{row: row, in: parsed}); len(chunk) == ChunkSize {
			if err := rep.saveChunk(ctx, tdb, chunk, errs, opts); err != nil {
				return rep, err
			}
			chunk = chunk[:0]
			if opts.Progress != nil {
				opts.Progress(rep.Rows)
			}
		}
	}
	if err := rep.saveChunk(ctx, tdb, chunk, errs, opts); err != nil {
		return rep, err
	}
	if opts.Progress != nil {
		opts.Progress(rep.Rows)
	}
	return rep, nil
}

// saveChunk creates the records of chunk, leaving out and reporting each
// record the store names as the cause of a refusal.
func (rep *KnowledgeReport) saveChunk(ctx context.Context, tdb *store.TenantDB, chunk []pendingKnowledge, errs *ErrorsFile, opts Options) error {
	pending := append([]pendingKnowledge(nil), chunk...)
	for len(pending) > 0 {
		rows := make([]store.KnowledgeBatchRow, len(pending))
		for i, p := range pending {
			rows[i] = p.in
		}
		res, err := store.BatchCreateExternalKnowledges(ctx, tdb, rows, opts.now())
		if err == nil {
			rep.Created += res.Created
			rep.Chunks++
			return nil
		}
		var e *learngate.Error
		if !errors.As(err, &e) || e.Record == nil || e.Record.Index < 0 || e.Record.Index >= len(pending) {
			return notSaved([]Row{pending[0].row, pending[len(pending)-1].row}, err)
		}
		i := e.Record.Index
		if err := rep.refuse(errs, pending[i].row, err); err != nil {
			return err
		}
		pending = append(pending[:i], pending[i+1:]...)
	}
	return nil
}

// refuse reports a row that cannot be saved.
func (rep *KnowledgeReport) refuse(errs *ErrorsFile, row Row, err error) error {
	rep.Errors++
	return errs.Add(row.Number, row.String("user_name"), handlers.RowProblem(err))
}
