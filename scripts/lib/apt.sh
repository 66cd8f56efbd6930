# Sourced by the CI scripts that install a Debian package they need.
#
# can_install: whether this process may install packages (root, apt-get).
# apt_install PKG...: installs the packages without recommends, quietly;
#   when that fails (a machine without package lists), updates the lists and
#   tries once more. Non-zero when the packages could not be installed.
can_install() {
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null
}

apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null \
    || { apt-get update -q >/dev/null \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null; }
}
