//go:build e2e_citus

package e2e

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/lib/pq"
)

// citusTopology is what scripts/e2e-citus.sh started, read from its E2EC_*
// variables: two serve nodes on the Citus coordinator, one on plain
// PostgreSQL, and the cluster's script to stop and start a worker.
type citusTopology struct {
	nodes      []string // the Citus serve nodes' public listeners, http://127.0.0.1:port
	ops        []string // their ops listeners
	plain      string   // the plain-PostgreSQL node's public listener
	plainOps   string   // its ops listener
	workers    []string // the Citus workers, 127.0.0.1:port, as worker1 and worker2
	script     string   // scripts/citus-cluster.sh (CITUS_DIR and CITUS_PORT in the environment)
	opsToken   string
	baseDomain string
	coord      *sql.DB // the coordinator, to read the placement and count rows
}

// loadCitusTopology reads the variables or skips when they are missing
// (the test runs only under scripts/e2e-citus.sh).
func loadCitusTopology(t *testing.T) *citusTopology {
	t.Helper()
	if os.Getenv("E2EC_NODES") == "" {
		t.Skip("E2EC_NODES is not set: run make e2e-citus")
	}
	list := func(name string) []string { return strings.Split(os.Getenv(name), ",") }
	topo := &citusTopology{
		nodes:      list("E2EC_NODES"),
		ops:        list("E2EC_OPS"),
		plain:      os.Getenv("E2EC_PLAIN"),
		plainOps:   os.Getenv("E2EC_PLAIN_OPS"),
		workers:    list("E2EC_WORKERS"),
		script:     os.Getenv("E2EC_CLUSTER_SCRIPT"),
		opsToken:   os.Getenv("LEARNGATE_OPS_TOKEN"),
		baseDomain: os.Getenv("LEARNGATE_BASE_DOMAINS"),
	}
	db, err := sql.Open("postgres", os.Getenv("E2EC_COORDINATOR_URL"))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(4)
	t.Cleanup(func() { db.Close() })
	topo.coord = db
	return topo
}

// host is a tenant's host under the base domain.
func (topo *citusTopology) host(slug string) string { return slug + "." + topo.baseDomain }

// api calls tenant slug's path (/papi/... or /scim/v2/...) on base, a
// node's public listener, with the tenant's key as the Authorization header.
func (topo *citusTopology) api(base, method, slug, path, auth string, body any, header map[string]string) answer {
	return call(directClient, method, base+path, topo.host(slug), auth, body, header)
}

// papi calls the Public API of tenant tn on Citus serve node n.
func (topo *citusTopology) papi(n int, method string, tn tenant, path string, body any) answer {
	return topo.api(topo.nodes[n], method, tn.slug, "/papi"+path, tn.key, body, nil)
}

// opsCall calls an ops listener (base) with the ops token.
func (topo *citusTopology) opsCall(base, method, path string, body any) answer {
	return call(directClient, method, base+path, "", "Bearer "+topo.opsToken, body, nil)
}

// createTenant makes a tenant through the ops listener base.
func (topo *citusTopology) createTenant(t *testing.T, base, slug string) tenant {
	t.Helper()
	a := topo.opsCall(base, http.MethodPost, "/ops/v1/tenants",
		map[string]any{"slug": slug, "name": slug + " e2e-citus", "rate_limit_per_minute": 1_000_000})
	if a.status != http.StatusCreated {
		t.Fatalf("create tenant %s: %s", slug, a)
	}
	return createdTenant(t, slug, a)
}

// placementSQL is each distributed schema's worker, from Citus's catalog:
// the schema's colocation group, its tables, their shards and the nodes of
// the shards' placements. A schema placed whole has one row.
const placementSQL = `
SELECT n.nspname, nd.nodename || ':' || nd.nodeport, count(DISTINCT p.logicalrelid)
FROM pg_dist_schema ds
JOIN pg_namespace n ON n.oid = ds.schemaid
JOIN pg_dist_partition p ON p.colocationid = ds.colocationid
JOIN pg_dist_shard s ON s.logicalrelid = p.logicalrelid
JOIN pg_dist_placement pl ON pl.shardid = s.shardid
JOIN pg_dist_node nd ON nd.groupid = pl.groupid
GROUP BY 1, 2`

// schemaPlacement is where a tenant schema's tables are.
type schemaPlacement struct {
	nodes  []string // host:port of every node holding one of its shards
	tables int
}

// placement reads every distributed schema's nodes from the coordinator.
func (topo *citusTopology) placement(t *testing.T) map[string]schemaPlacement {
	t.Helper()
	rows, err := topo.coord.Query(placementSQL)
	if err != nil {
		t.Fatalf("placement: %v", err)
	}
	defer rows.Close()
	out := map[string]schemaPlacement{}
	for rows.Next() {
		var schema, node string
		var tables int
		if err := rows.Scan(&schema, &node, &tables); err != nil {
			t.Fatal(err)
		}
		p := out[schema]
		p.nodes = append(p.nodes, node)
		p.tables += tables
		out[schema] = p
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for s, p := range out {
		sort.Strings(p.nodes)
		out[s] = p
	}
	return out
}

// nodeOf is the one worker of tenant tn's schema, or "" (with an error)
// when the schema is not distributed or is split over nodes.
func (topo *citusTopology) nodeOf(t *testing.T, places map[string]schemaPlacement, tn tenant) string {
	t.Helper()
	p, ok := places[tn.schema()]
	if !ok || len(p.nodes) != 1 {
		t.Errorf("%s (%s): placed on %v, want one worker", tn.slug, tn.schema(), p.nodes)
		return ""
	}
	return p.nodes[0]
}

// schema is the tenant's schema name.
func (tn tenant) schema() string { return fmt.Sprintf("tenant_%d", tn.id) }

// databaseNode reads "database_node" of GET /ops/v1/tenants/{slug}: the
// node, and whether the field is there at all.
func (topo *citusTopology) databaseNode(t *testing.T, slug string) (string, bool) {
	t.Helper()
	a := topo.opsCall(topo.ops[0], http.MethodGet, "/ops/v1/tenants/"+slug, nil)
	if a.status != 200 {
		t.Fatalf("GET tenant %s: %s", slug, a)
	}
	var out map[string]json.RawMessage
	a.decode(t, &out)
	raw, ok := out["database_node"]
	if !ok {
		return "", false
	}
	var node *string
	if err := json.Unmarshal(raw, &node); err != nil {
		t.Fatalf("database_node of %s: %s", slug, raw)
	}
	if node == nil {
		return "null", true
	}
	return *node, true
}

// count runs a count query on the coordinator.
func (topo *citusTopology) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := topo.coord.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// cluster runs scripts/citus-cluster.sh with args (kill worker2, start
// worker2), bounded to 60 s.
func (topo *citusTopology) cluster(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("timeout", append([]string{"60", topo.script}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("citus-cluster.sh %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// quantile is the q-quantile (0 < q <= 1) of durations, sorted in place.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	i := int(q*float64(len(ds))+0.5) - 1
	return ds[max(0, min(i, len(ds)-1))]
}
