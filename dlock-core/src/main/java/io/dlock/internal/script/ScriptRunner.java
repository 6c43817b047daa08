package io.dlock.internal.script;

import io.dlock.internal.transport.AnswerWatch;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Runs {@link LuaScript}s by SHA ({@code EVALSHA}); when Redis answers {@code NOSCRIPT} (first use, restart,
 * {@code SCRIPT FLUSH}) it sends the text once with {@code EVAL}, which also caches it. Never blocks; the returned
 * futures complete on Lettuce's I/O thread, so callers must keep their continuations non-blocking. Every call is
 * reported to the client's {@link AnswerWatch} (sent, answered or not), by which a timed wait tells a slow Redis from
 * an unavailable one.
 */
public final class ScriptRunner {
    private final RedisScriptingAsyncCommands<String, String> redis;
    private final AnswerWatch answers;

    public ScriptRunner(RedisScriptingAsyncCommands<String, String> redis, AnswerWatch answers) {
        this.redis = redis;
        this.answers = answers;
    }

    /**
     * @param type how to read the reply (INTEGER for nil-or-integer, MULTI for lists)
     * @return the reply, or a future failed with Lettuce's exception (mapped to {@code LockException} by callers)
     */
    public <T> CompletableFuture<T> run(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
        answers.sending();
        CompletableFuture<T> bySha = watched(redis.<T>evalsha(script.sha(), type, keys, args).toCompletableFuture());
        return bySha.exceptionallyCompose(error -> {
            if (unwrap(error) instanceof RedisNoScriptException) {
                return runByText(script, type, keys, args);
            }
            return CompletableFuture.failedFuture(error);
        });
    }

    /**
     * Runs the script by its text ({@code EVAL}), in one command whatever Redis has cached: for clean-ups sent while
     * Redis may not answer in time (giving up after a lost reply), where an {@code EVALSHA} that meets a server without
     * the script would answer {@code NOSCRIPT} after the caller stopped listening, and so never run.
     */
    public <T> CompletableFuture<T> runByText(LuaScript script, ScriptOutputType type, String[] keys,
                                              String... args) {
        answers.sending();
        return watched(redis.<T>eval(script.text(), type, keys, args).toCompletableFuture());
    }

    /** @return {@code reply}, its end reported to the answer watch */
    private <T> CompletableFuture<T> watched(CompletableFuture<T> reply) {
        reply.whenComplete((ok, error) -> answers.ended(error));
        return reply;
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
