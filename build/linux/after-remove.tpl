#!/bin/bash
# deb/rpm after-remove script (electron-builder.yml → deb/rpm afterRemove): electron-builder 26's
# after-remove.tpl (app-builder-lib/templates/linux, MIT) unchanged, followed by removing the
# /usr/bin/bijotel link of after-install.tpl — only if it is still this app's link.

# Delete the link to the binary
# update-alternatives --remove <name> <path>: 'path' must be the registered alternative binary,
# not the generic symlink — see https://man7.org/linux/man-pages/man1/update-alternatives.1.html
if type update-alternatives >/dev/null 2>&1; then
    update-alternatives --remove '${executable}' '/opt/${sanitizedProductName}/${executable}'
else
    rm -f '/usr/bin/${executable}'
fi

APPARMOR_PROFILE_DEST='/etc/apparmor.d/${executable}'

# Remove and unload apparmor profile.
if [ -f "$APPARMOR_PROFILE_DEST" ]; then
  # Unload the profile from the running kernel before deleting the file so the
  # policy is not left enforced until the next reboot.  Mirror the chroot guard
  # used in the after-install script — live AppArmor operations are not
  # meaningful inside a chroot.
  # https://wiki.debian.org/AppArmor/HowToUse
  if apparmor_status --enabled > /dev/null 2>&1; then
    if ! { [ -x '/usr/bin/ischroot' ] && /usr/bin/ischroot; } && hash apparmor_parser 2>/dev/null; then
      apparmor_parser --remove "$APPARMOR_PROFILE_DEST" || true
    fi
  fi
  rm -f "$APPARMOR_PROFILE_DEST"
fi
# Not on an upgrade (deb: postrm "upgrade"; rpm: %postun with 1 install left, run after the new
# version's %post), which would take away the link the new version has just made.
BIJOTEL_CLI='/opt/${sanitizedProductName}/resources/bin/bijotel'
if [ "$1" != "upgrade" ] && [ "$1" != "1" ] && [ -L /usr/bin/bijotel ] &&
  [ "$(readlink /usr/bin/bijotel)" = "$BIJOTEL_CLI" ]; then
  rm -f /usr/bin/bijotel
fi
