//go:build e2e_citus

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// citusRun carries the tenants made once for every property and where
// Citus placed them.
type citusRun struct {
	topo    *citusTopology
	tenants []tenant          // six tenants made through the ops API
	node    map[string]string // tenant slug → its worker, host:port
	// onWorker is a tenant on each worker (index as topo.workers) for the
	// resources and the webhooks; moved is another tenant of worker1,
	// moved to worker2 by property 4.
	onWorker [2]tenant
	moved    tenant
	hooks    [2]*receiver
	made     time.Duration // making the six tenants, one after the other
	// users are the user names each onWorker tenant created in property 2,
	// every one of which must arrive once as user.created.
	users [2][]string
}

// setup makes six tenants through node 1's ops API, and a webhook
// receiver for each worker's tenant (it lives for the whole test).
func (r *citusRun) setup(t *testing.T) {
	start := time.Now()
	for i := 1; i <= 6; i++ {
		r.tenants = append(r.tenants, r.topo.createTenant(t, r.topo.ops[0], fmt.Sprintf("ct%d", i)))
	}
	r.made = time.Since(start)
	r.hooks = [2]*receiver{startReceiver(t), startReceiver(t)}
}

// placement is property 1: the six tenants are distributed schemas, each
// whole on one worker, spread over both workers; the ops API's
// database_node says the same as Citus's catalog.
func (r *citusRun) placement(t *testing.T, p *citusProp) {
	topo := r.topo
	places := topo.placement(t)
	r.node = map[string]string{}
	per := map[string][]string{}
	tables := 0
	for _, tn := range r.tenants {
		n := topo.nodeOf(t, places, tn)
		r.node[tn.slug] = n
		per[n] = append(per[n], tn.slug)
		tables = max(tables, places[tn.schema()].tables)
	}
	p.figure("%d tenants made through the ops API in %s (%s each)", len(r.tenants), ms(r.made), ms(r.made/time.Duration(len(r.tenants))))
	for i, w := range topo.workers {
		p.figure("%s: %s", w, strings.Join(per[w], ", "))
		if len(per[w]) == 0 {
			t.Errorf("no tenant on worker %s: %v", w, per)
			continue
		}
		r.onWorker[i] = r.tenant(per[w][0])
	}
	if len(per[topo.workers[0]]) < 2 {
		t.Fatalf("worker1 holds %d tenants, want 2 (one to keep, one to move)", len(per[topo.workers[0]]))
	}
	r.moved = r.tenant(per[topo.workers[0]][1])
	p.figure("each schema whole on one node (%d tables, pg_dist_schema → pg_dist_partition → pg_dist_shard → pg_dist_placement → pg_dist_node)", tables)

	agree, absent := 0, 0
	for _, tn := range r.tenants {
		got, ok := topo.databaseNode(t, tn.slug)
		switch {
		case !ok:
			absent++
		case got != r.node[tn.slug]:
			t.Errorf("%s: database_node %s, Citus's catalog %s", tn.slug, got, r.node[tn.slug])
		default:
			agree++
		}
	}
	if absent > 0 {
		p.missing(t, `GET /ops/v1/tenants/{slug} has no "database_node" (%d of %d tenants)`, absent, len(r.tenants))
	} else {
		p.figure("database_node = catalog for %d of %d", agree, len(r.tenants))
	}
}

// tenant returns the run's tenant of slug.
func (r *citusRun) tenant(slug string) tenant {
	for _, tn := range r.tenants {
		if tn.slug == slug {
			return tn
		}
	}
	return tenant{}
}
