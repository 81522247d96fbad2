package states

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/model"
)

// The partitioned search (explore.Cluster) splits the visited set by a
// hash of the canonical key: partition q owns the states whose key hashes
// to q. It runs level by level, as the search in one process does. For a
// level, each partition reads the candidates sent to it (a key and the
// path that reached it), keeps the new ones, replays each one's path from
// the initial state, expands it and sends every successor to its owner
// for the next level; the coordinator starts the next level once every
// partition has reported. The search ends after a level that sent
// nothing.
//
// A path names its moves by their numbers among the moves of the state
// before (see moves). Ordered lexicographically, the paths of a level are
// in the order the one-process search finds its states, so each partition
// keeps, for a state several paths reach, the path that search keeps; and
// every finding carries its depth, the level that found it and its path,
// which order the findings of all partitions as that search records them.
// Counts, verdicts and witnesses are therefore those of one process,
// whatever the number of partitions and workers.
//
// A partition's visited set is the keys sent to it at the levels before:
// a worker that takes over the partition of one that died rebuilds it
// from the candidates the cluster stored, and does the level again.

// owner returns the partition of the state whose key is key.
func owner(key []byte, parts int) int {
	h := fnv.New64a()
	h.Write(key)
	return int(h.Sum64() % uint64(parts))
}

// appendCand appends the candidate of key reached by path, then move j
// when j >= 0.
func appendCand(b, key []byte, path []uint32, j int32) []byte {
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	n := len(path)
	if j >= 0 {
		n++
	}
	b = binary.AppendUvarint(b, uint64(n))
	for _, m := range path {
		b = binary.AppendUvarint(b, uint64(m))
	}
	if j >= 0 {
		b = binary.AppendUvarint(b, uint64(j))
	}
	return b
}

// readCands calls f with each candidate of data; the slices are reused.
func readCands(data []byte, f func(key []byte, path []uint32)) error {
	var path []uint32
	bad := errors.New("malformed candidates")
	for len(data) > 0 {
		n, k := binary.Uvarint(data)
		if k <= 0 || n > uint64(len(data)-k) {
			return bad
		}
		key := data[k : k+int(n)]
		data = data[k+int(n):]
		n, k = binary.Uvarint(data)
		if k <= 0 || n > uint64(len(data)) {
			return bad
		}
		data = data[k:]
		path = path[:0]
		for range n {
			m, k := binary.Uvarint(data)
			if k <= 0 || m > 1<<31 {
				return bad
			}
			path = append(path, uint32(m))
			data = data[k:]
		}
		f(key, path)
	}
	return nil
}

// partFinding is the first violation of a property a partition found, in
// the order of the one-process search, and how many it found.
type partFinding struct {
	Count int64
	Depth int      // the moves to the violation
	At    int      // the level whose expansion found it (-1: the initial steps)
	Path  []uint32 // the moves' numbers
}

// before reports whether a violation at depth, found at level at by path,
// comes before f's in the one-process search's order: shallower first,
// then by the level that found it, then by path.
func (f *partFinding) before(depth, at int, path []uint32) bool {
	if depth != f.Depth {
		return depth < f.Depth
	}
	if at != f.At {
		return at < f.At
	}
	return slices.Compare(path, f.Path) < 0
}

// note counts a violation and keeps it when it comes first.
func note(found map[string]*partFinding, prop string, count int64, depth, at int, path []uint32) {
	f := found[prop]
	if f == nil {
		found[prop] = &partFinding{Count: count, Depth: depth, At: at, Path: slices.Clone(path)}
		return
	}
	f.Count += count
	if f.before(depth, at, path) {
		f.Depth, f.At, f.Path = depth, at, slices.Clone(path)
	}
}

// levelReport is what a partition found at a level.
type levelReport struct {
	New      int64         // states new at the level
	Sent     int64         // candidates sent for the next level
	Stats    explore.Stats // the level's steps and final states, and the bound that cut it
	Stopped  bool          // a bound stopped the level (memory, time, cancellation)
	Free     bool          // some final state has no blocked thread
	Checked  []string      // the properties checked so far
	Found    map[string]*partFinding
	Stateful bool   // an operation showed the specification has state
	Err      string `json:",omitempty"`
}

// searchParts is search on the partitions of cluster c.
func (x *states) searchParts(c explore.Cluster) error {
	root, outs, err := x.initial(nil)
	if err != nil {
		return err
	}
	found := map[string]*partFinding{}
	for _, v := range x.judge(outs) {
		note(found, v.Prop, 1, 0, -1, nil)
	}
	sr, err := c.Begin(x.cfg.Job, !x.perOp)
	if err != nil {
		return err
	}
	defer sr.End()
	key := x.key(root)
	if err := sr.Send(owner(key, sr.Parts()), 0, appendCand(nil, key, nil, -1)); err != nil {
		return err
	}
	bounds, cancel := x.Bounds()
	defer cancel()
	for level := 0; ; level++ {
		reps, err := sr.Level(bounds, level)
		if err != nil {
			// A worker that died holding a partition is waited for no
			// longer than the timeout.
			if l := x.Limit(bounds); l != explore.NoLimit {
				x.SetLimit(l)
				break
			}
			return err
		}
		var sent int64
		stopped, stateful := false, false
		for q, data := range reps {
			var r levelReport
			if err := json.Unmarshal(data, &r); err != nil {
				return fmt.Errorf("partition %d's report of level %d: %w", q, level, err)
			}
			if r.Err != "" {
				return errors.New(r.Err)
			}
			x.nstates += r.New
			sent += r.Sent
			x.Absorb(r.Stats)
			x.free = x.free || r.Free
			for _, p := range r.Checked {
				x.reached[p] = true
			}
			for _, prop := range slices.Sorted(maps.Keys(r.Found)) {
				f := r.Found[prop]
				note(found, prop, f.Count, f.Depth, f.At, f.Path)
			}
			stopped = stopped || r.Stopped
			stateful = stateful || r.Stateful
		}
		if stateful {
			return errStateful
		}
		if x.Config.Progress != nil {
			st := x.Stats()
			st.States = x.nstates
			x.Config.Progress(st)
		}
		if stopped || sent == 0 {
			break
		}
	}
	// The witnesses replay the paths as moves (states are never changed
	// once made: root is still the initial state).
	for prop, f := range found {
		path := make([]move, len(f.Path))
		s := root
		for i, j := range f.Path {
			if s, path[i], err = x.follow(s, j); err != nil {
				return err
			}
		}
		x.found[prop] = &finding{count: f.Count, path: path}
	}
	return nil
}

// follow makes move number j from s.
func (x *states) follow(s *sstate, j uint32) (*sstate, move, error) {
	var m move
	i, ok := uint32(0), false
	x.moves(s, func(t int, o option) bool {
		if i == j {
			m, ok = move{int32(t), o}, true
			return false
		}
		i++
		return true
	})
	if !ok {
		return nil, m, engine.Internalf("a path names move %d of a state with %d", j, i)
	}
	n, _, err := x.apply(s, int(m.t), m.o, nil, nil)
	return n, m, err
}

// Serve expands partition sh.Part() of the partitioned search of p under
// m that the coordinator runs (cfg as its, but for the cluster), level by
// level, until the search ends.
func Serve(p *model.Program, m *model.Model, cfg Config, sh explore.Share) error {
	x := newStates(p, m, cfg)
	root, _, err := x.initial(nil)
	if err != nil {
		return err
	}
	sv := &server{states: x, sh: sh, root: root, workers: x.workers()}
	for done := -1; ; {
		level, ok, err := sh.Next()
		if err != nil || !ok {
			return err
		}
		if level <= done {
			continue
		}
		// A partition taken over: its visited set is the keys sent to it
		// at the levels before.
		for d := done + 1; d < level; d++ {
			err := sh.Receive(d, func(data []byte) error {
				return readCands(data, func(key []byte, _ []uint32) { x.seen.Add(key) })
			})
			if err != nil {
				return err
			}
		}
		r, err := sv.level(level)
		if err != nil {
			return err
		}
		data, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if err := sh.Report(level, data, r.New); err != nil {
			return err
		}
		done = level
	}
}

// server is a worker's partition.
type server struct {
	*states
	sh      explore.Share
	root    *sstate
	workers []*states
	stack   []*sstate // the states along path, from the root
	path    []uint32
	out     [][]byte            // per partition: candidates not sent yet
	sent    map[string]struct{} // the keys sent for the next level
}

// level expands the partition's new states of a level. What stops the
// exploration (a bound, an error of the program) goes in the report; an
// error of the cluster's is returned.
func (sv *server) level(level int) (*levelReport, error) {
	x := sv.states
	x.Restart()
	r := &levelReport{Found: map[string]*partFinding{}}
	// The path that reaches each new state first.
	first := map[string][]uint32{}
	var bad error
	err := sv.sh.Receive(level, func(data []byte) error {
		return readCands(data, func(key []byte, path []uint32) {
			if x.isSeen(key) {
				return
			}
			if p, ok := first[string(key)]; !ok || slices.Compare(path, p) < 0 {
				first[string(key)] = slices.Clone(path)
			}
		})
	})
	if err != nil {
		return nil, err
	}
	paths := make([][]uint32, 0, len(first))
	for k, p := range first {
		x.seen.Add([]byte(k))
		paths = append(paths, p)
	}
	clear(first)
	slices.SortFunc(paths, slices.Compare)
	r.New = int64(len(paths))
	sv.out = make([][]byte, sv.sh.Parts())
	sv.sent = map[string]struct{}{}
	defer func() { sv.sent = nil }()
	results := make([]expansion, batch)
	nodes := make([]node, 0, batch)
	for lo := 0; lo < len(paths) && bad == nil; lo += batch {
		part := paths[lo:min(lo+batch, len(paths))]
		nodes = nodes[:0]
		for _, p := range part {
			s, err := sv.replay(p)
			if err != nil {
				bad = err
				break
			}
			nodes = append(nodes, node{s: s})
		}
		expandAll(sv.workers, nodes, results)
		for i, e := range results[:len(nodes)] {
			results[i] = expansion{}
			if bad == nil && e.err != nil {
				bad = e.err
			}
			if bad != nil {
				continue
			}
			if bad = sv.final(r, level, part[i], e); bad != nil {
				continue
			}
			if err := sv.send(r, level, part[i], e); err != nil {
				return nil, err
			}
		}
	}
	switch {
	case bad == nil:
	case errors.Is(bad, engine.ErrStop):
		r.Stopped = true
	case errors.Is(bad, errStateful):
		r.Stateful = true
	default:
		r.Err = bad.Error()
	}
	for q, b := range sv.out {
		if len(b) > 0 {
			if err := sv.sh.Send(q, level+1, b); err != nil {
				return nil, err
			}
		}
	}
	if err := sv.sh.Flush(); err != nil {
		return nil, err
	}
	x.gather(sv.workers)
	r.Checked = slices.Sorted(maps.Keys(x.reached))
	r.Free = x.free
	r.Stats, _ = x.Finish(nil)
	return r, nil
}

// sendBatch is the size at which a partition's candidates for another are
// sent.
const sendBatch = 256 << 10

// final notes what the expansion e of the state path reached at level
// found: the violations of its moves, its bound, its end.
func (sv *server) final(r *levelReport, level int, path []uint32, e expansion) error {
	x := sv.states
	for _, sc := range e.next {
		for _, v := range sc.viol {
			note(r.Found, v.Prop, 1, level+1, level, append(path[:len(path):len(path)], uint32(sc.j)))
		}
	}
	if e.bounded {
		x.SetLimit(explore.MaxEvents)
	}
	if f := e.final; f != nil {
		if err := x.CountFinal(f.blocked); err != nil {
			return err
		}
		x.free = x.free || !f.blocked
		for _, v := range f.viol {
			note(r.Found, v.Prop, 1, level, level, path)
		}
	}
	return nil
}

// send sends the new successors of the state path that e found to their
// owners for the next level.
func (sv *server) send(r *levelReport, level int, path []uint32, e expansion) error {
	for _, sc := range e.next {
		if sc.s == nil {
			continue
		}
		// The first path to a state is its least: send no other.
		if _, ok := sv.sent[string(sc.key)]; ok {
			continue
		}
		sv.sent[string(sc.key)] = struct{}{}
		key := sc.key
		q := owner(key, len(sv.out))
		sv.out[q] = appendCand(sv.out[q], key, path, sc.j)
		r.Sent++
		if len(sv.out[q]) >= sendBatch {
			if err := sv.sh.Send(q, level+1, sv.out[q]); err != nil {
				return err
			}
			sv.out[q] = nil
		}
	}
	return nil
}

// replay returns the state path reaches from the initial state. Paths come
// in order, so it makes only the moves after the one before's prefix.
func (sv *server) replay(path []uint32) (*sstate, error) {
	c := 0
	for c < len(path) && c < len(sv.path) && path[c] == sv.path[c] {
		c++
	}
	sv.stack = sv.stack[:min(c+1, len(sv.stack))]
	if len(sv.stack) == 0 {
		sv.stack = append(sv.stack, sv.root)
	}
	for _, j := range path[len(sv.stack)-1:] {
		n, _, err := sv.follow(sv.stack[len(sv.stack)-1], j)
		if err != nil {
			return nil, err
		}
		sv.stack = append(sv.stack, n)
	}
	sv.path = append(sv.path[:0], path...)
	return sv.stack[len(path)], nil
}
