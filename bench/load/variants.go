package load

import "fmt"

// The variants of a users batch_save that the write scenarios compare with
// BatchUsers (docs/performance.md, "Batch writes"): each is BatchUsers'
// 100 fresh users plus one thing that costs learngate more work.

// CodesPerUser is the number of enrolment codes BatchUsersWithCodes gives
// each user.
const CodesPerUser = 3

// BatchUsersWithCodes is BatchUsers with CodesPerUser enrolment codes per
// user: two topics and one pathway of the dataset (datagen names their
// codes T<topic id> for topics 1-200 and P<pathway id> for pathways 1-20;
// pathway m holds topics 5m-4 ... 5m). Every code is applied, so the answer
// counts n × CodesPerUser enrolled.
func BatchUsersWithCodes(prefix string, batch int64, n int) []byte {
	people := batchPeople(prefix, batch, n)
	for k, p := range people {
		p["enrolment_code_1"] = fmt.Sprintf("T%d", k%200+1)
		p["enrolment_code_1_due_date"] = "2031-01-31"
		p["enrolment_code_2"] = fmt.Sprintf("T%d", (k+100)%200+1)
		p["enrolment_code_3"] = fmt.Sprintf("P%d", k%20+1)
	}
	return batchBody(people)
}

// BatchUsersNamedTwice is BatchUsers (n ≥ 2) whose last row names the
// first row's user again, with another first name: n-1 users are created
// and the first of them is then updated by the last row (created n-1,
// updated 1). A repeated name is what keeps learngate's batch off its
// set-based path.
func BatchUsersNamedTwice(prefix string, batch int64, n int) []byte {
	people := batchPeople(prefix, batch, n)
	again := make(map[string]any, len(people[0]))
	for k, v := range people[0] {
		again[k] = v
	}
	again["first_name"] = "Bench again"
	people[n-1] = again
	return batchBody(people)
}

// BatchUsersWithPasswords is BatchUsers with a valid password for every
// user (8 to 72 characters, a digit, an upper and a lower case letter), so
// the batch hashes n passwords with bcrypt.
func BatchUsersWithPasswords(prefix string, batch int64, n int) []byte {
	people := batchPeople(prefix, batch, n)
	for k, p := range people {
		p["password"] = fmt.Sprintf("Bench-pass-%d-%d", batch, k)
	}
	return batchBody(people)
}
