// Package sse encrypts and decrypts object bytes at rest in DARE 2.0
// (github.com/minio/sio): AES-256-GCM packages of 64 KiB of plaintext, each
// authenticated with its sequence number and the stream's final flag, so a
// range decrypts only the packages it covers and any change, reordering
// or truncation of the ciphertext is an error, never wrong bytes.
//
// sio writes the stream (NewWriter). The reading side is this package's
// own (reader.go): it reads a range's packages in blocks of four with one
// ReadAt each and decrypts them straight into the plaintext it hands out
// (WriteTo writes a block per Write), checking each header against the
// package's place in the stream, where sio's reader reads a package per
// call. The tests check it against streams sio writes and decrypts.
//
// A range of 4 MiB or more of one stream (of a multipart object: of one
// part) is written by a pipeline (pipeline.go) while the process has a
// core to spare: a helper goroutine reads and decrypts blocks ahead of
// the request's. Every block is read into a private
// buffer before it is opened, never decrypted out of a mapping of the
// file, which a writer of the file could change between AES-GCM's
// authentication and its decryption.
//
// Every object has its own random 256-bit data key. The data key is kept
// only sealed (metadata.Encryption.SealedKey): by a key-ring key for SSE-S3
// and SSE-KMS, and for SSE-C by a key derived from the customer's key and
// the ring's default key (HMAC), so neither the customer key nor anything
// that verifies it offline is stored. A wrong customer key fails to unseal.
//
// A multipart object's file is one DARE stream per part, one after the
// other, each under PartKey(data key, the part's salt); the layout (sizes
// and salts) is kept in metadata.Encryption.Parts and NewPartsReader reads
// ranges across it, so parts are encrypted as they arrive and the
// completion only appends files.
//
// # Caveats
//
// Data keys live in memory only for one request; callers Wipe them. An
// encrypted file is not readable as a plain file, and losing the key ring
// loses the data.
package sse
