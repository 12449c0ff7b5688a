package load

import (
	"encoding/json"
	"fmt"
)

// BatchUsers is the body of a POST /papi/users/batch_save creating n new
// users named <prefix>-<batch>-<k>: fresh names for every batch (prefix
// says which server and run, batch is the request's number), so every
// request does the same work, creating n users, instead of updating the
// users of an earlier one. Each user has two roles, two groups, a goal and
// three custom values (text, number, list), the dataset's catalog names.
func BatchUsers(prefix string, batch int64, n int) []byte {
	return batchBody(batchPeople(prefix, batch, n))
}

// batchPeople are the user objects of BatchUsers, for variants to add to.
func batchPeople(prefix string, batch int64, n int) []map[string]any {
	people := make([]map[string]any, n)
	for k := range n {
		name := fmt.Sprintf("%s-%d-%d", prefix, batch, k)
		people[k] = map[string]any{
			"user_name": name, "first_name": "Bench", "last_name": fmt.Sprintf("User %d", k),
			"email": name + "@bench.example", "role_1": fmt.Sprintf("Role %d", k%10+1), "role_2": "Role 10",
			"groups": fmt.Sprintf("Group %d;Group %d", k%20+1, (k+7)%20+1), "goals": fmt.Sprintf("Goal %d", k%10+1),
			"X-Department": fmt.Sprintf("Dept %d", k%25), "X-Grade": k%12 + 1, "X-Regions": "north;East",
		}
	}
	return people
}

// batchBody is the batch_save body of people.
func batchBody(people []map[string]any) []byte {
	body, _ := json.Marshal(map[string]any{"people": people}) // maps of plain values: never fails
	return body
}

// BatchKnowledge is the body of a POST /papi/external_knowledges/batch_save
// creating n records for the dataset's users user0000001 ... (of a tenant
// with at least users users), each with two skills and a category. Records
// are only ever created, so every request does the same work.
func BatchKnowledge(batch int64, n, users int) []byte {
	records := make([]map[string]any, n)
	for k := range n {
		u := (int(batch)*n+k)%users + 1
		records[k] = map[string]any{
			"user_name": fmt.Sprintf("user%07d", u), "knowledge_type": k%5 + 1,
			"title": fmt.Sprintf("Bench course %d-%d", batch, k), "provider": "Bench provider",
			"date_obtained": "2024-05-01", "skills_attained": fmt.Sprintf("Skill %d;Skill %d", k%30+1, (k+11)%30+1),
			"category_1_name": fmt.Sprintf("Category %d", k%10+1), "category_1_minutes": 45, "category_1_points": 1.5,
		}
	}
	body, _ := json.Marshal(map[string]any{"external_knowledges": records})
	return body
}
