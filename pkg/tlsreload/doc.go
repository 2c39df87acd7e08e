// Package tlsreload owns a listener's server certificate: it loads a
// certificate and key pair from files, hands the current one to every new
// TLS handshake, replaces it without a restart when asked (SIGHUP) or when
// the files change, and makes a self-signed pair for a gateway without one.
//
// The certificate in use is an atomic pointer that tls.Config's
// GetCertificate reads at each handshake. A reload swaps the pointer:
// connections already established keep the certificate they shook hands
// with and keep working, new connections get the new one. Nothing is
// closed or restarted.
//
// # Invariants
//
//   - The pointer always holds a pair that loaded and matched: a reload
//     that fails (a missing or unreadable file, a key that does not match
//     the certificate, a pair caught half-written) keeps the certificate
//     in use and reports why.
//   - Changes are found by the (device, inode, size, modification time)
//     of each path, taken with stat on the path and not on an open file,
//     because cert-manager and certbot replace the files by rename or by
//     swapping a symlink; the old inode an open file would point to never
//     changes.
//
// # Caveats
//
// Polling sees a change only at its next tick, and a pair written in two
// steps may be seen between them: that poll fails, keeps the old pair and
// the next change of either file is tried again. A change that keeps the
// same inode, size and modification time (a rewrite in place within the
// file system's timestamp resolution) is not seen by polling; SIGHUP
// reloads unconditionally.
package tlsreload
