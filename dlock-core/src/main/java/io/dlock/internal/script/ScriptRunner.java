package io.dlock.internal.script;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Runs {@link LuaScript}s by SHA ({@code EVALSHA}); when Redis answers {@code NOSCRIPT} (first use, restart,
 * {@code SCRIPT FLUSH}) it sends the text once with {@code EVAL}, which also caches it. Never blocks; the returned
 * futures complete on Lettuce's I/O thread, so callers must keep their continuations non-blocking.
 */
public final class ScriptRunner {
    private final RedisScriptingAsyncCommands<String, String> redis;

    public ScriptRunner(RedisScriptingAsyncCommands<String, String> redis) {
        this.redis = redis;
    }

    /**
     * @param type how to read the reply (INTEGER for nil-or-integer, MULTI for lists)
     * @return the reply, or a future failed with Lettuce's exception (mapped to {@code LockException} by callers)
     */
    public <T> CompletableFuture<T> run(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
        CompletableFuture<T> bySha = redis.<T>evalsha(script.sha(), type, keys, args).toCompletableFuture();
        return bySha.exceptionallyCompose(error -> {
            if (unwrap(error) instanceof RedisNoScriptException) {
                return redis.<T>eval(script.text(), type, keys, args).toCompletableFuture();
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
        return redis.<T>eval(script.text(), type, keys, args).toCompletableFuture();
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
