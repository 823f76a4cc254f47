# Sourced by pnotify-install-check (guest-check.sh) in the booted test
# system, after the PAM and Slurm integrations, with its pass, fail and
# check functions: job keyrings (keyring_bridge) with the real su and
# pam_keyinit, and MIT Kerberos (a KDC on localhost) keeping its tickets in
# them.  Each check prints one @@PNI line.

kr_user=pjuser
kr_other=pjother
kr_dir=/tmp/keyrings
kr_realm=PNOTIFY.TEST

# Waits up to $1 seconds for the command that follows to succeed.
kr_wait() {
	kr_deadline=$(( $(date +%s) + $1 ))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$kr_deadline" ] || return 1
		sleep 0.5
	done
}
# The name of the session keyring a process wrote to $kr_dir/$1.
kr_name() { sed 's/.*;//' "$kr_dir/$1" 2>/dev/null; }
kr_jobname() { printf '_job.%016x' "$1"; }

modprobe keyring_bridge
id "$kr_user" > /dev/null 2>&1 || useradd -m -s /bin/sh "$kr_user"
id "$kr_other" > /dev/null 2>&1 || useradd -m -s /bin/sh "$kr_other"
rm -rf "$kr_dir"
mkdir -m 1777 "$kr_dir"

# (a) A user's pam_job session, pam_keyinit before pam_job keyring as
# documented, runs su - to root.  Root's session keyring is its own: the
# user's processes can neither read, search nor link root's key.
echo "keyrings: su - to root in a user's session"
cp /etc/pam.d/common-session /etc/pam.d/common-session.pnotify
cp /etc/pam.d/su /etc/pam.d/su.pnotify
printf 'session optional pam_keyinit.so force revoke\nsession optional pam_job.so keyring\n' \
	>> /etc/pam.d/common-session
# su to root from the user without a terminal: the test's only shortcut.
sed -i '1i auth sufficient pam_permit.so' /etc/pam.d/su
cat > "$kr_dir/user.sh" <<'EOF'
d=/tmp/keyrings
keyctl rdescribe @s > $d/user.ses
keyctl padd user usersecret @s < /dev/null > $d/user.key
echo "$JOB_JID" > $d/user.jid
# A process of the user in the job tries root's key once su says it is there.
(
	while [ ! -e $d/root.ready ]; do sleep 0.2; done
	key=$(cat $d/root.key)
	{
		keyctl print "$key" && echo "LEAK print"
		keyctl search @s user rootsecret && echo "LEAK search"
		keyctl link "$key" @s && echo "LEAK link"
		keyctl list @s
	} > $d/user-probe.out 2>&1
	touch $d/probe.done
) &
su - root -c '
	d=/tmp/keyrings
	keyctl rdescribe @s > $d/root.ses
	keyctl add user rootsecret r00t @s > $d/root.key
	touch $d/root.ready
	while [ ! -e $d/probe.done ]; do sleep 0.2; done'
wait
EOF
timeout 120 su - "$kr_user" -c "sh $kr_dir/user.sh" > "$kr_dir/su.log" 2>&1
cp /etc/pam.d/common-session.pnotify /etc/pam.d/common-session
cp /etc/pam.d/su.pnotify /etc/pam.d/su
cat "$kr_dir/su.log" "$kr_dir"/*.ses "$kr_dir/user-probe.out" 2>/dev/null
kr_jid=$(cat "$kr_dir/user.jid" 2>/dev/null)
check "keyrings: su: the user's session keyring is its job's ($kr_jid)" \
	test -n "$kr_jid" -a "$(kr_name user.ses)" = "$(kr_jobname "${kr_jid:-0}")"
check "keyrings: su -: root's session keyring is not the job's ($(kr_name root.ses))" \
	test -s "$kr_dir/root.ses" -a "$(kr_name root.ses)" != "$(kr_jobname "${kr_jid:-0}")"
check "keyrings: su -: root added its key" test -s "$kr_dir/root.key"
check "keyrings: su -: the user's processes cannot read, search or link root's key" \
	sh -c "test -s '$kr_dir/user-probe.out' && ! grep -q 'LEAK\|rootsecret' '$kr_dir/user-probe.out'"

# (b) keyctl new_session in a job: its children keep the new keyring.
echo "keyrings: keyctl new_session"
jobctl create --user "$kr_user" -- setpriv --reuid="$kr_user" --regid="$kr_user" --init-groups \
	sh -c "keyctl rdescribe @s > $kr_dir/ns-before.ses; keyctl new_session > /dev/null
		sh -c 'keyctl rdescribe @s > $kr_dir/ns-child.ses'" > "$kr_dir/ns.jid"
check "keyrings: a job's process as its owner has the job keyring" \
	test "$(kr_name ns-before.ses)" = "$(kr_jobname "$(cat "$kr_dir/ns.jid")")"
check "keyrings: keyctl new_session: the child keeps the new session keyring ($(kr_name ns-child.ses))" \
	test "$(kr_name ns-child.ses)" = _ses

# (c) MIT Kerberos: a realm on localhost.
echo "keyrings: Kerberos"
cat > /etc/krb5.conf <<EOF
[libdefaults]
	default_realm = $kr_realm
	dns_lookup_kdc = false
	dns_lookup_realm = false
	rdns = false
[realms]
	$kr_realm = {
		kdc = 127.0.0.1
		admin_server = 127.0.0.1
	}
EOF
mkdir -p /etc/krb5kdc /var/lib/krb5kdc
cat > /etc/krb5kdc/kdc.conf <<EOF
[kdcdefaults]
	kdc_ports = 88
[realms]
	$kr_realm = {
		database_name = /var/lib/krb5kdc/principal
		key_stash_file = /etc/krb5kdc/stash
		acl_file = /etc/krb5kdc/kadm5.acl
	}
EOF
: > /etc/krb5kdc/kadm5.acl
kdb5_util create -s -r "$kr_realm" -P pnotify-master > "$kr_dir/kdb.log" 2>&1
kadmin.local -q "addprinc -pw pnotify-pw $kr_user" >> "$kr_dir/kdb.log" 2>&1
kadmin.local -q "addprinc -randkey svc/pnotify-test" >> "$kr_dir/kdb.log" 2>&1
systemctl restart krb5-kdc
check "keyrings: Kerberos: KDC for $kr_realm up with principals $kr_user and svc/pnotify-test" \
	kr_wait 30 sh -c "systemctl is-active --quiet krb5-kdc && kadmin.local -q listprincs 2>/dev/null | grep -q '^svc/pnotify-test@'"

# In a job of the user: kinit into the job keyring; a member forked later
# uses it; a process detached first keeps its handle for after the end.
export_cc='export KRB5CCNAME=KEYRING:session:krb5cc'
cat > "$kr_dir/krb.sh" <<EOF
export d=$kr_dir
$export_cc
echo pnotify-pw | kinit $kr_user > \$d/kinit.out 2>&1
echo "kinit: \$?" >> \$d/kinit.out
sh -c 'klist && kvno svc/pnotify-test' > \$d/forked.out 2>&1
echo "forked: \$?" >> \$d/forked.out
keyctl search @s keyring krb5cc > \$d/cc.keys
keyctl rlist "\$(cat \$d/cc.keys)" | tr ' ' '\\n' > \$d/cc.inner
for k in \$(cat \$d/cc.inner); do keyctl rlist \$k 2>/dev/null | tr ' ' '\\n'; done >> \$d/cc.keys
keyctl search @s keyring krb5cc > \$d/cc.serial
# A process that will be detached before the job ends, keeping its keyring.
sh -c 'echo \$\$ > \$d/kept.pid; while [ ! -e \$d/ended ]; do sleep 0.2; done
	klist > \$d/kept.out 2>&1; echo "klist: \$?" >> \$d/kept.out
	keyctl rdescribe @s >> \$d/kept.out 2>&1
	for i in 1 2 3 4 5 6 7 8 9 10; do
		keyctl describe \$(cat \$d/cc.serial) > \$d/cc.after 2>&1 || break
		sleep 1
	done' &
while [ ! -e \$d/done ]; do sleep 0.2; done
EOF
jobctl create --user "$kr_user" -- setpriv --reuid="$kr_user" --regid="$kr_user" --init-groups \
	sh "$kr_dir/krb.sh" > "$kr_dir/krb.jid" &
kr_wait 60 test -s "$kr_dir/cc.serial" -a -s "$kr_dir/kept.pid"
krb_jid=$(cat "$kr_dir/krb.jid")
cat "$kr_dir/kinit.out" "$kr_dir/forked.out"
check "keyrings: Kerberos: kinit into KEYRING:session:krb5cc in job $krb_jid" \
	grep -qx 'kinit: 0' "$kr_dir/kinit.out"
check "keyrings: Kerberos: a member forked later runs klist and kvno with it" \
	grep -qx 'forked: 0' "$kr_dir/forked.out"

# A process of the user attached later.
mkfifo "$kr_dir/go"
setpriv --reuid="$kr_user" --regid="$kr_user" --init-groups sh -c "
	read x < $kr_dir/go; $export_cc
	{ klist && kvno svc/pnotify-test; echo \"attached: \$?\"; } > $kr_dir/attached.out 2>&1" &
kr_attached=$!
sleep 1
jobctl attach "$kr_attached" "$krb_jid"
echo go > "$kr_dir/go"
wait "$kr_attached"
cat "$kr_dir/attached.out"
check "keyrings: Kerberos: a process attached later runs klist and kvno with it" \
	grep -qx 'attached: 0' "$kr_dir/attached.out"

# Another user, and root in another job, cannot read it: not through
# KRB5CCNAME, not by the serials of the cache's keys.
kr_probe="$export_cc; klist && echo LEAK
	for k in $(cat "$kr_dir/cc.keys" | tr '\n' ' '); do keyctl print \$k && echo LEAK; keyctl list \$k && echo LEAK; done; true"
setpriv --reuid="$kr_other" --regid="$kr_other" --init-groups sh -c "$kr_probe" \
	> "$kr_dir/other.out" 2>&1
cat "$kr_dir/other.out"
check "keyrings: Kerberos: another user cannot read the cache, by KRB5CCNAME or by serial" \
	sh -c "test -s '$kr_dir/cc.keys' && ! grep -q LEAK '$kr_dir/other.out'"
jobctl create -- sh -c "$kr_probe" > "$kr_dir/root.out" 2>&1
cat "$kr_dir/root.out"
check "keyrings: Kerberos: root in another job cannot read the cache" \
	sh -c "test -s '$kr_dir/cc.keys' && ! grep -q LEAK '$kr_dir/root.out'"

# The job ends: the kept handle reads as revoked, klist fails.
jobctl detach -p "$(cat "$kr_dir/kept.pid")"
touch "$kr_dir/done"
kr_wait 30 sh -c "! jobctl list | grep -q '^$krb_jid '"
touch "$kr_dir/ended"
kr_wait 30 grep -q '^klist:' "$kr_dir/kept.out"
cat "$kr_dir/kept.out"
check "keyrings: Kerberos: after the job ends klist fails in a process that kept its keyring" \
	sh -c "grep -q '^klist: [1-9]' '$kr_dir/kept.out' && grep -q 'revoked' '$kr_dir/kept.out'"
cat "$kr_dir/cc.after"
check "keyrings: Kerberos: after the job ends the cache keyring is gone" \
	grep -q 'Required key not available' "$kr_dir/cc.after"
rm -rf "$kr_dir"
