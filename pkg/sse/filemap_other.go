//go:build !unix

package sse

// fileMap is the mapped ciphertext of a pipeline where the platform can
// map files; here there is none and the pipeline reads with ReadAt.
type fileMap struct{}

func mapFile(*decoder, int64) *fileMap              { return nil }
func (*fileMap) block(int64, int64) ([]byte, error) { panic("sse: no file mapping") }
func (*fileMap) written(int64)                      {}
func (*fileMap) close()                             {}
func faultsPanic() func()                           { return func() {} }
func (d *decoder) openMapped(pt, ct []byte, seq, count int64, nonce *[12]byte) ([]byte, error) {
	return d.openBlock(pt, ct, seq, count, nonce)
}
