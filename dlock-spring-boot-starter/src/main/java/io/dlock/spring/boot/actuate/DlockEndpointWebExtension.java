package io.dlock.spring.boot.actuate;

import io.dlock.LockException;
import io.dlock.NotALockException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

import java.util.Objects;

/**
 * {@code GET /actuator/dlock/{name}} over HTTP, with a status for each way {@link DlockEndpoint#lock(String)} can end
 * (Spring Boot would answer every exception with a bare 500):
 * <ul>
 *   <li><b>200</b> with the lock's state ({@link DlockEndpoint.LockInfoDescriptor}), or, when the key holds something
 *       that is not a lock (another type, or a hash whose fields are not a lock's), a
 *       {@link NotALockDescriptor} with type {@code NOT_A_LOCK}: a fact about the name, not a failure. Its fields
 *       and values are never shown.</li>
 *   <li><b>403</b> ({@code REDIS_PERMISSION_DENIED}) when the application's Redis user may not read the lock's keys
 *       (ACL {@code NOPERM}): the request was understood and refused; it will be refused again until the ACL rule
 *       allows the name.</li>
 *   <li><b>503</b> ({@code REDIS_UNAVAILABLE}) when Redis is unreachable or did not answer within the command
 *       timeout: it may pass.</li>
 *   <li><b>400</b> ({@code INVALID_NAME}) for a name dlock refuses; <b>500</b> ({@code REDIS_ERROR}) for any other
 *       failure.</li>
 * </ul>
 * Every error answer is an {@link ErrorDescriptor} carrying dlock's message (it names the lock and the Redis error,
 * never a credential).
 */
@EndpointWebExtension(endpoint = DlockEndpoint.class)
public class DlockEndpointWebExtension {
    private final DlockEndpoint endpoint;

    public DlockEndpointWebExtension(DlockEndpoint endpoint) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    }

    /**
     * @param name a lock name
     * @return the lock's state, or what stands at the name instead, with the HTTP status listed on this class
     */
    @ReadOperation
    public WebEndpointResponse<Object> lock(@Selector String name) {
        try {
            return new WebEndpointResponse<>(endpoint.lock(name), WebEndpointResponse.STATUS_OK);
        } catch (NotALockException e) {
            return new WebEndpointResponse<>(new NotALockDescriptor(name, NotALockDescriptor.TYPE, e.getMessage()),
                    WebEndpointResponse.STATUS_OK);
        } catch (IllegalArgumentException e) {
            return error(name, "INVALID_NAME", e, WebEndpointResponse.STATUS_BAD_REQUEST);
        } catch (LockException e) {
            if (permissionDenied(e)) {
                return error(name, "REDIS_PERMISSION_DENIED", e, 403);
            }
            if (unavailable(e)) {
                return error(name, "REDIS_UNAVAILABLE", e, WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
            }
            return error(name, "REDIS_ERROR", e, WebEndpointResponse.STATUS_INTERNAL_SERVER_ERROR);
        }
    }

    private static WebEndpointResponse<Object> error(String name, String error, RuntimeException e, int status) {
        return new WebEndpointResponse<>(new ErrorDescriptor(name, error, e.getMessage()), status);
    }

    /** An ACL refusal ({@code NOPERM}) anywhere in the chain: of the command, or of a command a script called. */
    private static boolean permissionDenied(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String message = t.getMessage();
            if (message != null && (message.startsWith("NOPERM") || message.contains(" NOPERM ")
                    || message.contains("-NOPERM "))) {
                return true;
            }
        }
        return false;
    }

    private static boolean unavailable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RedisConnectionException || t instanceof RedisCommandTimeoutException
                    || t instanceof java.io.IOException) {
                return true;
            }
        }
        return false;
    }

    /**
     * What stands at a name that is not a lock.
     *
     * @param type    always {@value #TYPE}
     * @param message dlock's message: the name and the key's type, never its fields or values
     */
    public record NotALockDescriptor(String name, String type, String message) {
        /** The {@code type} of a key that is not a lock, beside {@code NONE}, {@code LOCK} and {@code READ_WRITE}. */
        public static final String TYPE = "NOT_A_LOCK";
    }

    /**
     * A failure to read a lock.
     *
     * @param error   {@code REDIS_PERMISSION_DENIED}, {@code REDIS_UNAVAILABLE}, {@code INVALID_NAME} or
     *                {@code REDIS_ERROR}
     * @param message dlock's message: the lock and the Redis error
     */
    public record ErrorDescriptor(String name, String error, String message) {
    }
}
