package explore

import "context"

// Cluster splits a state search into partitions that worker processes
// expand, each owning the states whose canonical form hashes to it
// (package dist provides one on NATS JetStream; docs/distributed.md). The
// process that asks for the search coordinates it through Begin; a worker
// serves one partition through a Share.
type Cluster interface {
	// Begin starts a partitioned search of what job describes (the
	// checker's description, which the workers rebuild the search from),
	// with whole histories when whole is set; workers take its
	// partitions.
	Begin(job []byte, whole bool) (Search, error)
	// Subtrees explores, on workers, the subtrees of a graph search of
	// what job describes that paths name (each a path of choices from the
	// root), and gives accept
	// what each found (the checker's encoding) with its index in paths,
	// once per subtree. A report accept returns an error for is not
	// the subtree's: it is set aside, and the subtree's is waited for.
	Subtrees(job []byte, paths [][]int32, accept func(i int, report []byte) error) error
}

// A Splitter is a Cluster that says how many subtrees a graph search it
// splits leaves its workers at least (when the search tree has them):
// the top of the tree is explored in the asking process until it does.
// A Cluster that does not say, or says 0, gets 64.
type Splitter interface {
	SubtreeJobs() int
}

// Search is the coordinator's end of a partitioned search. The search
// goes level by level: every partition expands its states of a level and
// sends their successors to their owners for the next, and the
// coordinator starts a level once every partition has reported the last.
type Search interface {
	// Parts is the number of partitions.
	Parts() int
	// Send sends candidates (the state explorer's encoding) to partition
	// part for level.
	Send(part, level int, data []byte) error
	// Level has every partition expand its states of level and returns
	// their reports, by partition, or ctx's error once ctx is done.
	Level(ctx context.Context, level int) ([][]byte, error)
	// End ends the search: the workers let go of its partitions.
	End()
}

// Share is a worker's end of one partition of a search.
type Share interface {
	// Part is the partition; Parts their number.
	Part() int
	Parts() int
	// Next waits for the level the coordinator asks for next; ok is false
	// once the search has ended. A worker that takes a partition over
	// from one that died first hears the level in progress.
	Next() (level int, ok bool, err error)
	// Receive calls f with each batch of candidates sent to the
	// partition for level.
	Receive(level int, f func(data []byte) error) error
	// Send sends candidates to partition part for level; Flush returns
	// once every candidate sent is stored.
	Send(part, level int, data []byte) error
	Flush() error
	// Report sends the partition's report of level to the coordinator;
	// states counts the states new in the partition at the level, for
	// progress.
	Report(level int, data []byte, states int64) error
}
