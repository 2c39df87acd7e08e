package object

import "github.com/objectgateway/objectgateway/metadata"

// LifecycleCursor returns where the lifecycle worker's pass stands in the
// index (metadata.Index.LifecycleCursor): the worker keeps it there so
// that a restart resumes the pass.
func (l *Layer) LifecycleCursor() (metadata.LifecycleCursor, error) {
	return l.ix.LifecycleCursor()
}

// SetLifecycleCursor stores the lifecycle worker's position; the zero
// cursor says no pass is in progress.
func (l *Layer) SetLifecycleCursor(c metadata.LifecycleCursor) error {
	return l.ix.SetLifecycleCursor(c)
}
