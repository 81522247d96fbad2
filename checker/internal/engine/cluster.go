package engine

// Subtree is a part of the graph explorer's search tree. The explorer's
// tasks (a graph to extend, or a write's backward revisits) form a tree,
// and a task's branches are numbered in the order the task makes them, so
// a path of branch numbers from the root names a task; the search is
// deterministic, so a worker reaches the task by following its path.
type Subtree struct {
	// Path names the task whose subtree is explored: the tasks on the way
	// are followed, counting nothing, only along the path.
	Path []int32
	// Cut, when above len(Path), leaves the tasks at that depth to
	// others: their paths go to Jobs, unexplored.
	Cut  int
	Jobs [][]int32
}
