package store

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
)

// Placement: where a tenant's schema lives when the database is a Citus
// coordinator with schema-based sharding (docs/architecture.md, "Beyond
// one PostgreSQL"). Each tenant schema is a distributed schema placed whole
// on one worker node; the statements of this file read and change that
// placement through Citus's own catalog and functions. On a single
// PostgreSQL there is no placement: every function here says so (no node,
// or learngate.Unprocessable for a move) without running anything else.

// distributed reports whether the database is a Citus coordinator: the
// citus extension is installed in it. It is asked again each time (one
// catalog lookup) so that an extension created after the pool was opened
// is seen.
func (db *DB) distributed(ctx context.Context) (bool, error) {
	var ok bool
	err := db.pool.GetContext(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')`)
	if err != nil {
		return false, translate(fmt.Errorf("look for citus: %w", err))
	}
	return ok, nil
}

// SchemaNodes returns the worker node ("host:port") of each of schemas that
// is a distributed schema; a schema that is not (every schema on a single
// PostgreSQL) has no entry.
func (db *DB) SchemaNodes(ctx context.Context, schemas []string) (map[string]string, error) {
	nodes := map[string]string{}
	if ok, err := db.distributed(ctx); err != nil || !ok {
		return nodes, err
	}
	var rows []struct {
		Schema string `db:"schema"`
		Node   string `db:"node"`
	}
	err := db.pool.SelectContext(ctx, &rows, `SELECT DISTINCT ON (s.schemaid) n.nspname AS schema,
			dn.nodename || ':' || dn.nodeport AS node
		FROM pg_dist_schema s
		JOIN pg_namespace n ON n.oid = s.schemaid
		JOIN pg_dist_partition p ON p.colocationid = s.colocationid
		JOIN pg_dist_shard sh ON sh.logicalrelid = p.logicalrelid
		JOIN pg_dist_placement pl ON pl.shardid = sh.shardid
		JOIN pg_dist_node dn ON dn.groupid = pl.groupid
		WHERE n.nspname = ANY($1)
		ORDER BY s.schemaid, sh.shardid`, pq.Array(schemas))
	if err != nil {
		return nil, translate(fmt.Errorf("schema placements: %w", err))
	}
	for _, r := range rows {
		nodes[r.Schema] = r.Node
	}
	return nodes, nil
}

// DatabaseNode is one worker node of a Citus cluster.
type DatabaseNode struct {
	// Addr is "host:port".
	Addr string
	// Host and Port are Addr's parts.
	Host string
	Port int
}

// WorkerNodes returns the active worker nodes that may hold tenant schemas
// (Citus's pg_dist_node, primaries with shouldhaveshards), in node order;
// none on a single PostgreSQL.
func (db *DB) WorkerNodes(ctx context.Context) ([]DatabaseNode, error) {
	if ok, err := db.distributed(ctx); err != nil || !ok {
		return nil, err
	}
	var rows []struct {
		Host string `db:"nodename"`
		Port int    `db:"nodeport"`
	}
	err := db.pool.SelectContext(ctx, &rows, `SELECT nodename, nodeport FROM pg_dist_node
		WHERE isactive AND noderole = 'primary' AND shouldhaveshards ORDER BY nodeid`)
	if err != nil {
		return nil, translate(fmt.Errorf("worker nodes: %w", err))
	}
	nodes := make([]DatabaseNode, len(rows))
	for i, r := range rows {
		nodes[i] = DatabaseNode{Addr: net.JoinHostPort(r.Host, strconv.Itoa(r.Port)), Host: r.Host, Port: r.Port}
	}
	return nodes, nil
}

// nodeCheckTimeout bounds the coordinator's connection attempt to each
// worker in NodesDown: a node that does not answer within it is down.
const nodeCheckTimeout = time.Second

// NodesDown returns the worker nodes the coordinator cannot reach now;
// none on a single PostgreSQL. Each node is tried with a connection timeout
// of nodeCheckTimeout, in one transaction of the coordinator.
func (db *DB) NodesDown(ctx context.Context) ([]string, error) {
	nodes, err := db.WorkerNodes(ctx)
	if err != nil || len(nodes) == 0 {
		return nil, err
	}
	var down []string
	err = db.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT set_config('citus.node_connection_timeout', $1, true)`,
			strconv.Itoa(int(nodeCheckTimeout.Milliseconds()))); err != nil {
			return err
		}
		for _, n := range nodes {
			var up bool
			if err := tx.GetContext(ctx, &up, `SELECT citus_check_connection_to_node($1, $2)`, n.Host, n.Port); err != nil {
				return err
			}
			if !up {
				down = append(down, n.Addr)
			}
		}
		return nil
	})
	if err != nil {
		return nil, translate(fmt.Errorf("check worker nodes: %w", err))
	}
	return down, nil
}

// ParseNode checks that addr ("host:port") is one of the cluster's worker
// nodes and returns it; learngate.Unprocessable otherwise, and on a single
// PostgreSQL, where no tenant can move.
func (db *DB) ParseNode(ctx context.Context, addr string) (DatabaseNode, error) {
	nodes, err := db.WorkerNodes(ctx)
	if err != nil {
		return DatabaseNode{}, err
	}
	if len(nodes) == 0 {
		return DatabaseNode{}, learngate.Errorf(learngate.Unprocessable,
			"the database is a single PostgreSQL, not a Citus cluster: tenants cannot move")
	}
	for _, n := range nodes {
		if n.Addr == addr {
			return n, nil
		}
	}
	return DatabaseNode{}, learngate.Errorf(learngate.Unprocessable, "node '%s' is not a worker node of the cluster", addr)
}

// CheckMoveSafety refuses tenant moves while a worker node commits
// asynchronously (synchronous_commit = off for learngate's database and
// user there): learngate.Unprocessable naming the nodes, Unavailable when a
// node cannot be asked; nil on a single PostgreSQL. Citus's online move
// waits, once writes are blocked, until the target has replayed the
// source's WAL up to pg_current_wal_lsn(), the WAL *written* so far; an
// asynchronous commit returns before its WAL is written, so the writes of
// the move's last moments would stay behind on the old node and be dropped
// with it (deploy/README.md, "Moving and rebalancing": make e2e-citus lost
// 1 to 41 acknowledged writes a move this way).
func (db *DB) CheckMoveSafety(ctx context.Context) error {
	if ok, err := db.distributed(ctx); err != nil || !ok {
		return err
	}
	var rows []struct {
		Host    string `db:"nodename"`
		Port    int    `db:"nodeport"`
		Success bool   `db:"success"`
		Result  string `db:"result"`
	}
	err := db.pool.SelectContext(ctx, &rows, `SELECT nodename, nodeport, success, result
		FROM run_command_on_workers('SHOW synchronous_commit') ORDER BY nodename, nodeport`)
	if err != nil {
		return translate(fmt.Errorf("synchronous_commit of the workers: %w", err))
	}
	var async []string
	for _, r := range rows {
		addr := net.JoinHostPort(r.Host, strconv.Itoa(r.Port))
		if !r.Success {
			return learngate.Errorf(learngate.Unavailable, "worker node '%s' cannot be reached: %s", addr, r.Result)
		}
		if r.Result == "off" {
			async = append(async, addr)
		}
	}
	if len(async) > 0 {
		return learngate.Errorf(learngate.Unprocessable,
			"worker nodes %s run with synchronous_commit = off: a move would lose the writes of its last moments; "+
				"set synchronous_commit = on there first (deploy/README.md, Moving and rebalancing)", strings.Join(async, ", "))
	}
	return nil
}

// MoveSchema moves schema, whole, to worker node to (citus_schema_move),
// and returns when it is there. Citus copies the rows by logical
// replication while the schema keeps serving reads and writes, then blocks
// its writes for the final switch only (every tenant table has a replica
// identity for it: tenant migration 00023). It runs on the migration pool
// (a direct connection, no read timeout): a big tenant takes minutes.
func (db *DB) MoveSchema(ctx context.Context, schema string, to DatabaseNode) error {
	if err := db.CheckMoveSafety(ctx); err != nil {
		return err
	}
	_, err := db.migrations.ExecContext(ctx, `SELECT citus_schema_move($1::regnamespace, $2::text, $3::integer)`, schema, to.Host, to.Port)
	if err != nil {
		return translate(fmt.Errorf("move schema %s to %s: %w", schema, to.Addr, err))
	}
	return nil
}

// MoveProgress is how far the move of a schema has come: the bytes of its
// tables on the source node and those copied to the target so far.
type MoveProgress struct {
	SourceBytes int64 `db:"source_bytes" json:"source_bytes"`
	TargetBytes int64 `db:"target_bytes" json:"target_bytes"`
}

// SchemaMoveProgress returns the progress of the move of schema running now
// (Citus's get_rebalance_progress), and false when none is.
func (db *DB) SchemaMoveProgress(ctx context.Context, schema string) (MoveProgress, bool, error) {
	if ok, err := db.distributed(ctx); err != nil || !ok {
		return MoveProgress{}, false, err
	}
	var p struct {
		MoveProgress
		Shards int `db:"shards"`
	}
	err := db.pool.GetContext(ctx, &p, `SELECT count(*) AS shards,
			coalesce(sum(source_shard_size), 0)::bigint AS source_bytes,
			coalesce(sum(target_shard_size), 0)::bigint AS target_bytes
		FROM get_rebalance_progress() r
		JOIN pg_class c ON c.oid = r.table_name JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1`, schema)
	if err != nil {
		return MoveProgress{}, false, translate(fmt.Errorf("move progress of %s: %w", schema, err))
	}
	return p.MoveProgress, p.Shards > 0, nil
}

// StartRebalance starts Citus's background rebalance of the cluster
// (citus_rebalance_start): it moves distributed schemas, whole, between
// workers until they hold about the same size of tenants (the by_disk_size strategy), each move
// online as in MoveSchema. It returns the rebalance's job id, or 0 when
// nothing needs to move.
func (db *DB) StartRebalance(ctx context.Context) (int64, error) {
	if ok, err := db.distributed(ctx); err != nil || !ok {
		if err == nil {
			err = learngate.Errorf(learngate.Unprocessable,
				"the database is a single PostgreSQL, not a Citus cluster: there is nothing to rebalance")
		}
		return 0, err
	}
	if err := db.CheckMoveSafety(ctx); err != nil {
		return 0, err
	}
	var id *int64
	if err := db.migrations.QueryRowContext(ctx, `SELECT citus_rebalance_start(rebalance_strategy := 'by_disk_size')`).Scan(&id); err != nil {
		return 0, translate(fmt.Errorf("start rebalance: %w", err))
	}
	if id == nil {
		return 0, nil
	}
	return *id, nil
}

// WaitRebalance waits for the running rebalance to end (citus_rebalance_wait).
func (db *DB) WaitRebalance(ctx context.Context) error {
	if _, err := db.migrations.ExecContext(ctx, `SELECT citus_rebalance_wait()`); err != nil {
		return translate(fmt.Errorf("wait for rebalance: %w", err))
	}
	return nil
}
