package s3err

import (
	"context"
	"errors"
	"io"
	"syscall"
)

// FromOS maps an operating-system or I/O error to the S3 code a client
// should see. It is the only place such a mapping is made; anything it does
// not know is an InternalError.
func FromOS(err error) Code {
	var e *Error
	switch {
	case err == nil:
		return InternalError
	case errors.As(err, &e):
		return e.Code
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT), errors.Is(err, syscall.EFBIG):
		return InsufficientStorage
	case errors.Is(err, syscall.EROFS):
		return ReadOnlyStorage
	case errors.Is(err, syscall.ENAMETOOLONG):
		return KeyTooLongError
	case errors.Is(err, io.ErrUnexpectedEOF):
		return IncompleteBody
	case errors.Is(err, context.DeadlineExceeded):
		return RequestTimeout
	}
	return InternalError
}
