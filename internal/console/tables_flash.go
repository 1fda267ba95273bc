package console

import (
	"net/http"
	"sync"
	"time"
)

// Flashes: what a POST did (a table created, deleted, its protection
// turned off), kept for the page it redirects to (POST, redirect, GET:
// reloading that page sends nothing again). A flash belongs to the
// session that made it, is shown once and is forgotten after flashTTL.

// flashTTL is how long a flash waits to be shown.
const flashTTL = 5 * time.Minute

// maxFlashes bounds the flashes kept; past it the oldest are forgotten.
const maxFlashes = 1000

// flash is one message, with the calls that did it.
type flash struct {
	// OK is the confirmation ("Table Music created."); Notes follow it
	// (what happened to its time to live).
	OK    string
	Notes []string
	// Warn is a part that did not work, with DynamoDB's error.
	Warn    string
	WarnErr *APIError
	// Calls are the DynamoDB calls made, shown folded.
	Calls []Call
	// Created and CreatedStatus are the table CreateTable created and
	// the TableStatus it answered: the tables page words OK with the
	// status the list shows (createdWords).
	Created, CreatedStatus string

	session string
	made    time.Time
}

type flashStore struct {
	mu   sync.Mutex
	byID map[string]*flash
}

// flashes is the process's flash store (ids are random, and a flash is
// only shown to the session that made it).
var flashes = flashStore{byID: map[string]*flash{}}

// putFlash keeps f for r's session and returns its id, for ?flash=ID.
func (c *Console) putFlash(r *http.Request, f *flash) string {
	if s := sessionOf(r); s != nil {
		f.session = s.ID
	}
	f.made = time.Now()
	id := randomToken()
	flashes.mu.Lock()
	defer flashes.mu.Unlock()
	for k, o := range flashes.byID {
		if len(flashes.byID) < maxFlashes && time.Since(o.made) < flashTTL {
			continue
		}
		delete(flashes.byID, k)
	}
	flashes.byID[id] = f
	return id
}

// takeFlash returns and forgets the flash ?flash= names, if it is r's
// session's.
func (c *Console) takeFlash(r *http.Request) *flash {
	id := r.URL.Query().Get("flash")
	if id == "" {
		return nil
	}
	flashes.mu.Lock()
	defer flashes.mu.Unlock()
	f := flashes.byID[id]
	if f == nil || time.Since(f.made) > flashTTL {
		return nil
	}
	if s := sessionOf(r); s == nil || s.ID != f.session {
		return nil
	}
	delete(flashes.byID, id)
	return f
}
