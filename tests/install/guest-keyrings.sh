# Sourced by pnotify-install-check (guest-check.sh) in the booted test
# system, after the PAM and Slurm integrations, with its pass, fail and
# check functions: job keyrings (keyring_bridge) with the real su and
# pam_keyinit, and MIT Kerberos (a KDC on localhost) keeping its tickets in
# them, from a kinit in a job and from a pam_krb5 password login.  Each
# check prints one @@PNI line.

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

export_cc='export KRB5CCNAME=KEYRING:session:krb5cc'
# cache.sh P, run as the user in the job once the cache is made: the
# serials of the cache's keys (every key in the job keyring but its job
# key, and every key in their keyrings) in P.keys, and a process, to be detached before the job ends, that keeps
# the job keyring and runs klist after the end (P.kept.out).
cat > "$kr_dir/cache.sh" <<'EOF'
p=/tmp/keyrings/$1
walk() {
	for k in $(keyctl rlist "$1"); do
		case $(keyctl rdescribe "$k" 2>/dev/null) in
		keyring\;*) echo "$k"; walk "$k" ;;
		job\;*) ;;
		*) echo "$k" ;;
		esac
	done
}
walk @s > "$p.keys"
sh -c "echo \$\$ > $p.kept.pid; while [ ! -e $p.ended ]; do sleep 0.2; done
	klist > $p.kept.out 2>&1; echo \"klist: \$?\" >> $p.kept.out
	keyctl rdescribe @s >> $p.kept.out 2>&1" &
EOF

# A process of the user attached later to the job $3 of the cache P ($1)
# runs klist and kvno with it; $2 names the checks.
kr_attached() {
	rm -f "$kr_dir/go"
	mkfifo "$kr_dir/go"
	setpriv --reuid="$kr_user" --regid="$kr_user" --init-groups sh -c "
		read x < $kr_dir/go; $export_cc
		{ klist && kvno svc/pnotify-test; echo \"attached: \$?\"; } > $kr_dir/$1.attached.out 2>&1" &
	kr_attached=$!
	sleep 1
	jobctl attach "$kr_attached" "$3"
	echo go > "$kr_dir/go"
	wait "$kr_attached"
	cat "$kr_dir/$1.attached.out"
	check "$2: a process attached later runs klist and kvno with it" \
		grep -qx 'attached: 0' "$kr_dir/$1.attached.out"
}

# Another user, and root in another job, cannot read the cache P: not
# through KRB5CCNAME, not by the serials of its keys.
kr_probes() {
	kr_p=$kr_dir/$1
	kr_probe="$export_cc; klist && echo LEAK
		for k in $(tr '\n' ' ' < "$kr_p.keys"); do keyctl print \$k && echo LEAK; keyctl list \$k && echo LEAK; done; true"
	setpriv --reuid="$kr_other" --regid="$kr_other" --init-groups sh -c "$kr_probe" \
		> "$kr_p.other.out" 2>&1
	cat "$kr_p.other.out"
	check "$2: another user cannot read the cache, by KRB5CCNAME or by serial" \
		sh -c "test -s '$kr_p.keys' && ! grep -q LEAK '$kr_p.other.out'"
	jobctl create -- sh -c "$kr_probe" > "$kr_p.root.out" 2>&1
	cat "$kr_p.root.out"
	check "$2: root in another job cannot read the cache" \
		sh -c "test -s '$kr_p.keys' && ! grep -q LEAK '$kr_p.root.out'"
}

# Once the job $3 of the cache P has ended: the kept handle reads as
# revoked, klist fails, and every key of the cache is gone.
kr_after_end() {
	kr_p=$kr_dir/$1
	kr_wait 30 sh -c "! jobctl list | grep -q '^$3 '"
	touch "$kr_p.ended"
	kr_wait 30 grep -q '^klist:' "$kr_p.kept.out"
	cat "$kr_p.kept.out"
	check "$2: after the job ends klist fails in a process that kept its keyring" \
		sh -c "grep -q '^klist: [1-9]' '$kr_p.kept.out' && grep -q 'revoked' '$kr_p.kept.out'"
	check "$2: after the job ends the cache's $(wc -l < "$kr_p.keys") keys are gone" \
		kr_wait 10 sh -c "test -s '$kr_p.keys' && for k in \$(cat '$kr_p.keys'); do
			keyctl describe \$k 2>&1 | grep -q 'Required key not available' || exit 1; done"
}

# In a job of the user: kinit into the job keyring; a member forked later
# uses it.
cat > "$kr_dir/krb.sh" <<EOF
export d=$kr_dir
$export_cc
echo pnotify-pw | kinit $kr_user > \$d/kinit.out 2>&1
echo "kinit: \$?" >> \$d/kinit.out
sh -c 'klist && kvno svc/pnotify-test' > \$d/forked.out 2>&1
echo "forked: \$?" >> \$d/forked.out
sh \$d/cache.sh kinit
while [ ! -e \$d/done ]; do sleep 0.2; done
EOF
jobctl create --user "$kr_user" -- setpriv --reuid="$kr_user" --regid="$kr_user" --init-groups \
	sh "$kr_dir/krb.sh" > "$kr_dir/krb.jid" &
kr_wait 60 test -s "$kr_dir/kinit.keys" -a -s "$kr_dir/kinit.kept.pid"
krb_jid=$(cat "$kr_dir/krb.jid")
cat "$kr_dir/kinit.out" "$kr_dir/forked.out"
check "keyrings: Kerberos: kinit into KEYRING:session:krb5cc in job $krb_jid" \
	grep -qx 'kinit: 0' "$kr_dir/kinit.out"
check "keyrings: Kerberos: a member forked later runs klist and kvno with it" \
	grep -qx 'forked: 0' "$kr_dir/forked.out"
kr_attached kinit "keyrings: Kerberos" "$krb_jid"
kr_probes kinit "keyrings: Kerberos"
jobctl detach -p "$(cat "$kr_dir/kinit.kept.pid")"
touch "$kr_dir/done"
kr_after_end kinit "keyrings: Kerberos" "$krb_jid"

# (d) A password login through pam_krb5: pamtester authenticates the user
# and opens the session; pam_keyinit makes the session keyring, pam_krb5
# puts the TGT in it, pam_job keyring links it into the job keyring.  The
# session's process (pam_exec, as the user) uses it, so does a process
# attached later; the session stays open until the test logs out.
echo "keyrings: pam_krb5"
cat > /etc/pam.d/pnotify-krb5 <<EOF
auth	required	pam_krb5.so minimum_uid=1000
account	required	pam_permit.so
session	optional	pam_keyinit.so force revoke
session	required	pam_krb5.so minimum_uid=1000 ccache=KEYRING:session:krb5cc
session	optional	pam_exec.so type=open_session /bin/sh $kr_dir/pam-before.sh
session	required	pam_job.so keyring fatal debug
session	required	pam_exec.so type=open_session /bin/sh $kr_dir/pam-session.sh
EOF
# What pam_keyinit and pam_krb5 left in the application's session keyring.
echo "keyctl show @s > $kr_dir/pam.before 2>&1" > "$kr_dir/pam-before.sh"
cat > "$kr_dir/pam-session.sh" <<EOF
setpriv --reuid=$kr_user --regid=$kr_user --init-groups sh $kr_dir/pam-user.sh &
while [ ! -e $kr_dir/logout ]; do sleep 0.2; done
EOF
cat > "$kr_dir/pam-user.sh" <<'EOF'
d=/tmp/keyrings
{
	echo "jid=$JOB_JID"
	echo "ccname=$KRB5CCNAME"
	echo "session=$(keyctl rdescribe @s)"
	keyctl show @s
} > $d/pam.user 2>&1
sh -c 'klist && kvno svc/pnotify-test' > $d/pam.forked.out 2>&1
echo "forked: $?" >> $d/pam.forked.out
sh $d/cache.sh pam
# Still in the job after the logout, until told.
while [ ! -e $d/linger ]; do sleep 0.2; done
{ klist; echo "klist: $?"; } > $d/pam.linger.out 2>&1
EOF
printf 'pnotify-pw\n' | timeout 300 pamtester -v pnotify-krb5 "$kr_user" \
	authenticate open_session close_session > "$kr_dir/pamtester.out" 2>&1 &
kr_pamtester=$!
kr_wait 120 test -s "$kr_dir/pam.keys" -a -s "$kr_dir/pam.kept.pid"
cat "$kr_dir/pam.before" "$kr_dir/pam.user" "$kr_dir/pam.forked.out"
pam_jid=$(sed -n 's/^jid=//p' "$kr_dir/pam.user")
check "keyrings: pam_krb5: the cache is in pam_keyinit's session keyring, owned by $kr_user" \
	sh -c "sed -n 2p '$kr_dir/pam.before' | grep -q ' $(id -u "$kr_user") .* keyring: _ses\$' &&
		grep -q 'krb5cc' '$kr_dir/pam.before'"
check "keyrings: pam_krb5: the session's process has its job keyring ($pam_jid)" \
	grep -qx "session=keyring;.*;$(kr_jobname "${pam_jid:-0}")" "$kr_dir/pam.user"
check "keyrings: pam_krb5: KRB5CCNAME=KEYRING:session:krb5cc in the session" \
	grep -qx 'ccname=KEYRING:session:krb5cc' "$kr_dir/pam.user"
check "keyrings: pam_krb5: a process of the session forked later runs klist and kvno with the TGT" \
	grep -qx 'forked: 0' "$kr_dir/pam.forked.out"
kr_attached pam "keyrings: pam_krb5" "$pam_jid"
kr_probes pam "keyrings: pam_krb5"
# Logout: pamtester closes the session and exits; a process of the session
# still in the job keeps the cache, which ends with the job.
jobctl detach -p "$(cat "$kr_dir/pam.kept.pid")"
touch "$kr_dir/logout"
wait "$kr_pamtester"
kr_rc=$?
cat "$kr_dir/pamtester.out"
journalctl -b --no-pager -o cat | grep -a 'pnotify-krb5' | tail -n 20
check "keyrings: pam_krb5: pamtester authenticates $kr_user's password" \
	grep -q 'successfully authenticated' "$kr_dir/pamtester.out"
check "keyrings: pam_krb5: logout: pamtester closes the session (exit status $kr_rc)" \
	sh -c "test $kr_rc = 0 && grep -q 'session has successfully been closed' '$kr_dir/pamtester.out'"
touch "$kr_dir/linger"
kr_wait 30 grep -q '^klist:' "$kr_dir/pam.linger.out"
cat "$kr_dir/pam.linger.out"
check "keyrings: pam_krb5: after logout a process left in the job still lists the TGT" \
	grep -qx 'klist: 0' "$kr_dir/pam.linger.out"
kr_after_end pam "keyrings: pam_krb5" "$pam_jid"
rm -f /etc/pam.d/pnotify-krb5
rm -rf "$kr_dir"
