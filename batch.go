package learngate

// BatchRow is one person of a batch save, as the handler read it.
type BatchRow struct {
	// UserName is the row's user_name as sent (any case); "" when missing.
	UserName string
	// Email is the row's email as sent, for the error entry; "" when missing.
	Email string
	// Err is a fault found before the store was asked (the row is not an
	// object, it has no user_name); the row is reported and skipped.
	Err error
	// New and Update are the row parsed, before the store was called, as
	// a new user and as an update of the user it names: whether that user
	// exists is known only inside the batch transaction, and a later row
	// may name a user an earlier row created. The store picks one with
	// Input and never calls parsing code back.
	New, Update ParsedUser
	// Enrolments are the row's enrolment field groups (enrolment_code_N
	// ...), applied once the row's user is saved.
	Enrolments []EnrolmentRequest
}

// ParsedUser is a batch row parsed one way: its UserInput, or the fault
// (Invalid or Unprocessable) that makes the row an error_list entry.
type ParsedUser struct {
	In  UserInput
	Err error
}

// Input returns the row as a new user (creating) or as an update of the
// user it names.
func (r BatchRow) Input(creating bool) (UserInput, error) {
	if creating {
		return r.New.In, r.New.Err
	}
	return r.Update.In, r.Update.Err
}

// BatchError is an entry of a batch result's error_list. A user error
// carries user_name, email and error_reason; an enrolment error only
// error_reason.
type BatchError struct {
	UserName *string `json:"user_name,omitempty"`
	Email    *string `json:"email,omitempty"`
	Reason   string  `json:"error_reason"`
	// Row is the 0-based index in the batch of the row the entry is about,
	// for callers that report by row (the CSV import); not in the API body.
	Row int `json:"-"`
}

// BatchResult is the spec's batch user result.
type BatchResult struct {
	Created           int          `json:"created"`
	Updated           int          `json:"updated"`
	Unchanged         int          `json:"unchanged"`
	Enrolled          int          `json:"enrolled"`
	InvitationsSent   int          `json:"invitations_sent"`
	InvitationsFailed int          `json:"invitations_failed"`
	Errors            int          `json:"errors"`
	ErrorList         []BatchError `json:"error_list"`
}
