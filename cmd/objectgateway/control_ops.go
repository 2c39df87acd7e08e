package main

import (
	"fmt"

	"github.com/objectgateway/objectgateway/pkg/object"
)

// adminOps are the changes `objectgateway user` and `objectgateway
// bucket` make: on the index directly when no gateway serves the root
// (localOps), or through the control socket of the gateway that does
// (controlClient), which applies them with its own localOps. Each method
// returns the object layer's errors (object.ErrNoSuchUser,
// object.ErrUserExists, an *s3err.Error NoSuchBucket), or an error that
// wraps them, so the commands print the same either way.
type adminOps interface {
	ListUsers() ([]object.User, error)
	// AddUser returns the new user and its secret, which is never
	// retrievable again.
	AddUser(in object.AddUserInput) (object.User, string, error)
	RemoveUser(accessKey string) error
	// RotateUser returns the user's new secret; the old one stops working.
	RotateUser(accessKey string) (string, error)
	DisableUser(accessKey string) error
	EnableUser(accessKey string) error
	// UserPolicy returns the user's identity policy document as it was
	// put, or object.ErrNoUserPolicy.
	UserPolicy(accessKey string) (string, error)
	// SetUserPolicy validates and attaches an identity policy ("" removes
	// it; object.ErrNoUserPolicy when there is none). A document that
	// does not validate is an error wrapping errMalformedPolicy.
	SetUserPolicy(accessKey, doc string) error
	// BucketCacheControl returns the bucket's default Cache-Control, ""
	// when it has none.
	BucketCacheControl(bucket string) (string, error)
	// SetBucketCacheControl sets it; "" removes it.
	SetBucketCacheControl(bucket, value string) error
}

// localOps applies adminOps to a layer and the Users that authenticates
// against its index. In a gateway, users must be the very Users the S3
// handler asks for secrets, so that its cache forgets a changed user at
// once.
type localOps struct {
	layer *object.Layer
	users *object.Users
}

func (o localOps) ListUsers() ([]object.User, error) { return o.users.List() }

func (o localOps) AddUser(in object.AddUserInput) (object.User, string, error) {
	return o.users.AddUser(in)
}

func (o localOps) RemoveUser(accessKey string) error { return o.users.RemoveUser(accessKey) }

func (o localOps) RotateUser(accessKey string) (string, error) {
	return o.users.RotateUser(accessKey)
}

func (o localOps) DisableUser(accessKey string) error {
	return o.users.SetDisabled(accessKey, true)
}

func (o localOps) EnableUser(accessKey string) error {
	return o.users.SetDisabled(accessKey, false)
}

func (o localOps) UserPolicy(accessKey string) (string, error) {
	return o.users.UserPolicy(accessKey)
}

func (o localOps) SetUserPolicy(accessKey, doc string) error {
	return policyErr(o.users.SetUserPolicy(accessKey, doc))
}

func (o localOps) BucketCacheControl(bucket string) (string, error) {
	b, err := o.layer.Bucket(bucket)
	if err != nil {
		return "", err
	}
	return b.CacheControl, nil
}

func (o localOps) SetBucketCacheControl(bucket, value string) error {
	if !validHeaderValue(value) {
		return fmt.Errorf("%w: %q is not a header value", errBadControlRequest, value)
	}
	return o.layer.UpdateBucket(bucket, 0, func(b *object.Bucket) error {
		b.CacheControl = value
		return nil
	})
}
