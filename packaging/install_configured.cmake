# packaging/install_configured.cmake — runs at install time (install(SCRIPT)
# in packaging/CMakeLists.txt): fills the final install prefix into the
# systemd unit and the Slurm prolog, then installs them. At install time,
# so that `cmake --install build --prefix DIR` writes DIR's paths into them,
# and DESTDIR staging keeps the prefix's.
# Reads COLO_PACKAGING_SOURCE and COLO_PACKAGING_BINARY (set by install(CODE)).
set(_root "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
set(COLO_INSTALL_BINDIR "${CMAKE_INSTALL_PREFIX}/bin")
set(COLO_INSTALL_DOCDIR "${CMAKE_INSTALL_PREFIX}/share/doc/colo")
set(COLO_INSTALL_LIBEXECDIR "${CMAKE_INSTALL_PREFIX}/libexec/colo")
configure_file("${COLO_PACKAGING_SOURCE}/systemd/colod.service.in"
               "${COLO_PACKAGING_BINARY}/colod.service" @ONLY)
configure_file("${COLO_PACKAGING_SOURCE}/slurm/colo-prolog.sh.in"
               "${COLO_PACKAGING_BINARY}/colo-prolog.sh" @ONLY)
file(INSTALL "${COLO_PACKAGING_BINARY}/colod.service"
     DESTINATION "${_root}/lib/systemd/system")
file(INSTALL "${COLO_PACKAGING_BINARY}/colo-prolog.sh"
     DESTINATION "${_root}/libexec/colo"
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                      GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
