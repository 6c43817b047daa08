package io.dlock.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A small bash process beside the command that stops the command when dlock cannot: when dlock is killed (SIGKILL,
 * a crash) or stopped (SIGSTOP) or hangs, so that the command never outlives the hold.
 *
 * <p>Protocol, on the guard's stdin (a pipe from dlock): lines {@code TERM_CS KILL_CS}: SIGTERM within TERM_CS and
 * SIGKILL within KILL_CS centiseconds of reading the line, unless a newer line arrives (the first is sent before the
 * command starts, so a dlock stopped at any moment leaves a deadline behind); {@code pid N} naming the command, sent
 * right after its start (should dlock stop or die before that, the guard finds the command by the {@value #TOKEN} in
 * its environment); {@code done} ends the guard quietly. "The command" is its process and its descendants, read from
 * /proc when the guard acts.
 * <ul>
 *   <li>No new line before TERM_CS (dlock stopped or hung): says {@code stopping} on its stdout (a pipe that dlock
 *       reads once the command has ended), then SIGTERM, then SIGKILL at KILL_CS.</li>
 *   <li>End of input without {@code done} (dlock is gone; the kernel closed the pipe): SIGTERM at once, SIGKILL after
 *       kill-after but no later than KILL_CS. The lock is not released (dlock is gone); it expires with its lease.</li>
 * </ul>
 * Only bash builtins and /proc are used (no fork while waiting); the clock is /proc/uptime (monotonic, 10 ms steps).
 * The guard starts before the command, so a running command always has a guard.
 */
final class OrphanGuard {
    /** The variable, in the command's environment, that holds a random id of the run. */
    static final String TOKEN = "DLOCK_RUN_TOKEN";
    private static final String SCRIPT = """
            set -u
            trap '' PIPE
            dlock=$1 lock=$2 kill_after=$3 token=$4
            now() { local u; read -r u _ < /proc/uptime; now=$(( 10#${u/./} )); }
            secs() { printf -v t '%d.%02d' $(( $1 / 100 )) $(( $1 % 100 )); }
            alive() { local s; read -r s 2>/dev/null < /proc/$1/stat || return 1; s=${s##*) }; [[ ${s:0:1} != Z ]]; }
            tree() {  # the processes in $root and their descendants, as pids in $tree
              local -A kids=(); local f s p pp q c
              for f in /proc/[0-9]*/stat; do
                read -r s 2>/dev/null < "$f" || continue
                s=${s##*) }; set -- $s; pp=$2; p=${f#/proc/}; p=${p%/stat}
                kids[$pp]+=" $p"
              done
              tree=$root; q=($root)
              while (( ${#q[@]} )); do
                p=${q[0]}; q=("${q[@]:1}")
                for c in ${kids[$p]:-}; do tree+=" $c"; q+=($c); done
              done
            }
            by_token() {  # the processes whose environment holds this run's token (the pid never arrived)
              local f p e; root=
              for f in /proc/[0-9]*/environ; do
                p=${f#/proc/}; p=${p%/environ}
                while IFS= read -r -d '' e; do
                  [[ $e == "DLOCK_RUN_TOKEN=$token" ]] && { root+=" $p"; break; }
                done 2>/dev/null < "$f"
              done
            }
            root= term= kill=
            while :; do
              if [[ -z $term ]]; then read -r a b; rc=$?
              else
                now; left=$(( term - now ))
                if (( left <= 0 )); then why=deadline; break; fi
                secs $left; read -r -t "$t" a b; rc=$?
              fi
              if (( rc > 128 )); then why=deadline; break; fi
              if (( rc != 0 )); then why=gone; break; fi
              case $a in
                done) exit 0 ;;
                pid) root=$b ;;
                *) now; term=$(( now + a )); kill=$(( now + b )) ;;
              esac
            done
            [[ -z $root ]] && by_token
            [[ -z $root ]] && exit 0
            now
            : "${why:=gone}"
            if [[ $why == gone ]]; then
              until=$(( now + kill_after )); [[ -n $kill ]] && (( kill < until )) && until=$kill
              secs $(( until - now ))
              echo "dlock: dlock (pid $dlock) is gone; stopping the command (pid $root) of $lock:" \
                "SIGTERM now, SIGKILL in ${t}s; it expires with its lease" >&2
            else
              until=$kill
              echo stopping 2>/dev/null  # tells dlock, once it runs again, who stopped the command
              echo "dlock: dlock (pid $dlock) is not renewing $lock (stopped?); stopping the command" \
                "(pid $root) before the lease ends" >&2
            fi
            tree; all=$tree
            kill -TERM $tree 2>/dev/null
            while :; do
              any=; for p in $all; do alive $p && any=1; done
              [[ -z $any ]] && exit 0
              now; (( now >= until )) && break
              sleep 0.02
            done
            tree; kill -KILL $all $tree 2>/dev/null
            exit 0
            """;

    private final Process process;
    private final OutputStream in;
    private final PrintStream err;
    private boolean broken; // guarded by this

    private OrphanGuard(Process process, PrintStream err) {
        this.process = process;
        this.in = process.getOutputStream();
        this.err = err;
    }

    /**
     * Starts the guard; on failure says so and returns null (the run goes on, guarded by dlock alone).
     *
     * @param held  what the run holds, for the guard's messages: {@code lock 'NAME'} ({@link HoldWords#held()})
     * @param env   the environment for the guard (credentials removed, as for the command)
     * @param token the value of {@value #TOKEN} in the command's environment (not in the guard's): should dlock die
     *              before it could name the command's pid, the guard finds the command by it
     */
    static OrphanGuard start(String held, Duration killAfter, Map<String, String> env, String token,
                             PrintStream err) {
        ProcessBuilder pb = new ProcessBuilder(List.of("bash", "-c", SCRIPT, "dlock-orphan-guard",
                Long.toString(ProcessHandle.current().pid()), held, Long.toString(killAfter.toMillis() / 10),
                token));
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.redirectOutput(ProcessBuilder.Redirect.PIPE);
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        try {
            return new OrphanGuard(pb.start(), err);
        } catch (IOException e) {
            err.println("dlock: warning: cannot start the guard that stops the command if dlock is killed or stopped"
                    + " (bash: " + e.getMessage() + "); going on without it");
            return null;
        }
    }

    /** The command to guard: sent at once after its start (its first deadlines were sent before it). */
    void watch(long pid) {
        send("pid " + pid + "\n");
    }

    /** New deadlines, ns from now. */
    void deadlines(long termInNanos, long killInNanos) {
        send(centis(termInNanos) + " " + centis(killInNanos) + "\n");
    }

    /** The command has ended (or is being stopped by dlock and has been waited for): the guard exits. */
    void done() {
        send("done\n");
        synchronized (this) {
            broken = true;
            try {
                in.close();
            } catch (IOException e) {
                // the guard is gone already
            }
        }
    }

    /**
     * @return whether the guard has stopped the command because dlock did not renew in time (it says so on its stdout
     * before it signals, so this is known once the command has ended)
     */
    boolean stoppedTheCommand() {
        try {
            return process.getInputStream().available() > 0;
        } catch (IOException e) {
            return false;
        }
    }

    private static long centis(long nanos) {
        return Math.max(0, nanos / 10_000_000L);
    }

    private synchronized void send(String line) {
        if (broken) {
            return;
        }
        try {
            in.write(line.getBytes(StandardCharsets.US_ASCII));
            in.flush();
        } catch (IOException e) {
            broken = true;
            if (process.isAlive()) {
                err.println("dlock: warning: lost contact with the guard process: " + e.getMessage());
            }
        }
    }
}
