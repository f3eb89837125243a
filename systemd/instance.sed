# DOC: turns ibsmd.service into ibsmd@.service, one ibsmd per fabric.
#
# Instance NAME reads @sysconfdir@/ibsmd/NAME.conf (which must exist and
# should pick the port: ca/port or port_guid), keeps its state in
# /var/lib/ibsmd/NAME and listens on /run/ibsmd/NAME/ibsmd.sock, so SMs
# for several fabrics run side by side on one management node.
1i\
# Generated from ibsmd.service.in by instance.sed: instance %i is a fabric,\
# configured in @sysconfdir@/ibsmd/%i.conf; ibsmctl -s /run/ibsmd/%i/ibsmd.sock.
s|^Description=.*|Description=InfiniBand subnet manager (ibsmd) for fabric %i|
s|^ConditionPathExistsGlob=.*|&\
AssertPathExists=@sysconfdir@/ibsmd/%i.conf|
s|^ExecStart=.*|ExecStart=@sbindir@/ibsmd -c @sysconfdir@/ibsmd/%i.conf -o state_dir=/var/lib/ibsmd/%i -o socket_path=/run/ibsmd/%i/ibsmd.sock|
s|^StateDirectory=ibsmd$|StateDirectory=ibsmd/%i|
s|^RuntimeDirectory=ibsmd$|RuntimeDirectory=ibsmd/%i|
