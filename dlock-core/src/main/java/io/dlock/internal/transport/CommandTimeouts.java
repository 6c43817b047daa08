package io.dlock.internal.transport;

import io.dlock.LockClientConfig;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;

import java.util.concurrent.TimeUnit;

/**
 * How long a command may wait for its reply: {@link LockClientConfig#commandTimeout()} for every command, except
 * {@code WAIT}, which Redis itself holds up to the {@code syncReplicas} timeout before it answers and so gets that on
 * top. Without the allowance a {@code WAIT} timeout at or above the command timeout would always end as a timeout.
 */
final class CommandTimeouts extends TimeoutOptions.TimeoutSource {
    private final long commandNanos;
    private final long waitNanos;

    private CommandTimeouts(LockClientConfig config) {
        this.commandNanos = config.commandTimeout().toNanos();
        this.waitNanos = commandNanos + (config.syncReplicas() > 0 ? config.syncReplicasTimeout().toNanos() : 0);
    }

    static TimeoutOptions options(LockClientConfig config) {
        return TimeoutOptions.builder().timeoutCommands().timeoutSource(new CommandTimeouts(config)).build();
    }

    @Override
    public long getTimeout(RedisCommand<?, ?, ?> command) {
        return command.getType() == CommandType.WAIT ? waitNanos : commandNanos;
    }

    @Override
    public TimeUnit getTimeUnit() {
        return TimeUnit.NANOSECONDS;
    }
}
