package storage

import (
	"errors"
	"os"
	"path"
	"syscall"
)

// placeDemoting is place for a Publish with Prior.Demote: the file at base
// of d, the version being replaced, is hard-linked at VersionPath, the
// versions directory is fsynced, and only then is the upload renamed over
// base and d fsynced. The link takes the place of the staging backup of
// place, so the demotion costs one directory fsync more and nothing else.
// Nothing at base (ENOENT) or a directory there (EPERM) leaves nothing to
// demote, and the rename goes on as in place. It takes ownership of d; on
// error nothing has changed at base.
func (u *Upload) placeDemoting(d *os.File, base string, loc Location, pub *published) error {
	fs := u.fs
	vp, err := VersionPath(pub.bucket, pub.key, pub.prior.Version)
	if err != nil {
		d.Close()
		return err
	}
	flagged, err := fs.unflag(d, base, pub.prior.Immutable)
	if err != nil {
		d.Close()
		return err
	}
	// fail puts the replaced file's immutable flag back and releases d.
	fail := func(err error) error {
		d.Close()
		return errors.Join(err, reflag(flagged))
	}
	vd, err := fs.ensureDir(fs.root, path.Dir(vp))
	if err != nil {
		return fail(fs.mapErr(err))
	}
	dem := &demotion{dir: vd, base: path.Base(vp), flagged: flagged}
	exchanged := false
	err = u.injected("link")
	if err == nil {
		err = linkAt(d, base, vd, dem.base)
	}
	if errors.Is(err, syscall.EEXIST) {
		err = u.linkOver(d, base, vd, dem.base)
	}
	switch {
	case err == nil:
	case errors.Is(err, syscall.ENOENT):
		// Nothing at base: the rename replaces nothing.
		vd.Close()
		dem = nil
	case errors.Is(err, syscall.EPERM) && !fs.isDirAt(d, base):
		// A file that may not be linked (fs.protected_hardlinks, or a
		// filesystem without hard links): as in place, the names are
		// exchanged, and the previous file, now the upload's staging
		// name, is renamed on to VersionPath. Until that rename a crash
		// leaves it in staging, which Open clears (docs/durability.md).
		if err := fs.exchangeWithStaging(u.name, d, base); err != nil {
			vd.Close()
			return fail(err)
		}
		if err := fs.renameOver(fs.staging, u.name, vd, dem.base); err != nil {
			xerr := fs.exchangeWithStaging(u.name, d, base)
			vd.Close()
			return fail(errors.Join(err, xerr))
		}
		exchanged = true
	case errors.Is(err, syscall.EPERM):
		// A directory, which has no bytes to keep: the rename reports
		// the collision.
		vd.Close()
		dem = nil
	default:
		vd.Close()
		return fail(err)
	}
	switch {
	case dem == nil:
		if err := fs.renameFromStaging(u.name, d, base); err != nil {
			return fail(err)
		}
	case !exchanged:
		// The link must be durable before the rename takes the key's
		// path from the file.
		err := u.injected("dirsync")
		if err == nil {
			err = fs.sync(vd)
		}
		if err == nil {
			err = u.injected("rename")
		}
		if err == nil {
			err = fs.renameFromStaging(u.name, d, base)
		}
		if err != nil {
			uerr := fs.unlinkAt(vd, dem.base, 0)
			vd.Close()
			return fail(errors.Join(err, uerr))
		}
	}
	pub.loc, pub.base = loc, base
	if dem != nil {
		pub.demoted, pub.dir = dem, d
	} else {
		defer d.Close()
	}
	u.pub = pub
	err = u.injected("dirsync")
	if err == nil {
		err = fs.sync(d)
	}
	if err == nil && exchanged {
		err = fs.sync(vd)
	}
	if err == nil && dem != nil {
		err = reflagOpen(dem.flagged)
	}
	if err != nil {
		return errors.Join(err, u.Undo())
	}
	return nil
}

// linkOver links base of d at vbase of vd where a file already is, a
// leftover of a demotion a crash interrupted: the link is made in staging
// and renamed over the leftover, so VersionPath always names a file. The
// staging name is removed afterwards in case the leftover was a link to
// the same file, which rename leaves as it is.
func (u *Upload) linkOver(d *os.File, base string, vd *os.File, vbase string) error {
	fs := u.fs
	tmp := u.name + ".prev"
	if err := fs.linkToStaging(d, base, tmp); err != nil {
		return err
	}
	err := fs.renameOver(fs.staging, tmp, vd, vbase)
	if uerr := fs.unlinkAt(fs.staging, tmp, 0); uerr != nil && !errors.Is(uerr, syscall.ENOENT) {
		err = errors.Join(err, uerr)
	}
	return err
}
