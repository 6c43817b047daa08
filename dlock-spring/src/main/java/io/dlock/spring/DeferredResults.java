package io.dlock.spring;

import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;

import java.lang.reflect.Method;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.stream.BaseStream;

/**
 * Which results carry work that runs after the method returned: a lock released on return would not cover that work,
 * so {@link DistributedLocked} refuses such methods by declared return type when the proxy is created, and fails a
 * call whose returned object turns out to be one. A deny-list, by class name (so that libraries need not be on the
 * class path), of every deferred shape Java, Spring MVC and the common reactive libraries offer, plus whatever Spring's
 * {@link ReactiveAdapterRegistry} recognises. Stateless, thread-safe.
 *
 * <p>One exception is made before this class is asked: a method whose declared return type is exactly Reactor's
 * {@code Mono} or {@code Flux} is held per subscription instead ({@link ReactiveResult}, {@link ReactiveCalls}); such
 * a publisher returned through a wider declared type ({@code Object}, {@code Publisher}, inside a
 * {@code ResponseEntity}) is still refused here.
 */
final class DeferredResults {
    /**
     * Types (matched with their subtypes) whose work may run after they are returned. A future or a stage is work
     * already under way or queued; a publisher, a callable, a stream or an iterator is work that runs when the caller
     * consumes it; Spring MVC completes a {@code DeferredResult}, {@code WebAsyncTask}, emitter or streaming body
     * after the handler returned.
     */
    private static final List<String> DEFERRED = List.of(
            // java.*: running or queued work, and work run when consumed
            "java.util.concurrent.Future", "java.util.concurrent.CompletionStage",
            "java.util.concurrent.Callable",
            "java.util.concurrent.Flow$Publisher", "java.util.stream.BaseStream", "java.util.Iterator",
            "java.util.Spliterator", "java.util.Enumeration",
            // Reactive Streams (Reactor's Mono and Flux, RxJava's Flowable, Mutiny 1's Multi...)
            "org.reactivestreams.Publisher",
            // RxJava 3, 2 and 1
            "io.reactivex.rxjava3.core.ObservableSource", "io.reactivex.rxjava3.core.SingleSource",
            "io.reactivex.rxjava3.core.MaybeSource", "io.reactivex.rxjava3.core.CompletableSource",
            "io.reactivex.ObservableSource", "io.reactivex.SingleSource", "io.reactivex.MaybeSource",
            "io.reactivex.CompletableSource", "rx.Observable", "rx.Single", "rx.Completable",
            // Mutiny, Vert.x, Kotlin, Scala
            "io.smallrye.mutiny.Uni", "io.smallrye.mutiny.Multi", "io.vertx.core.Future",
            "kotlinx.coroutines.flow.Flow", "kotlinx.coroutines.Job", "scala.concurrent.Future",
            // Spring MVC: completed after the handler returned
            "org.springframework.web.context.request.async.DeferredResult",
            "org.springframework.web.context.request.async.WebAsyncTask",
            "org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter",
            "org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody");

    /** Holders whose content is the result: checked inside (Spring's {@code ResponseEntity} is an HttpEntity). */
    private static final String HTTP_ENTITY = "org.springframework.http.HttpEntity";

    /** Per class: the deferred type it is (or extends), or null. */
    private static final ClassValue<String> DEFERRED_TYPE = new ClassValue<>() {
        @Override
        protected String computeValue(Class<?> type) {
                Class<?> named = supertypeIn(type, DEFERRED);
            if (named != null) {
                return named.getName();
            }
            return ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null ? type.getName() : null;
        }
    };

    private DeferredResults() {
    }

    /**
     * Checks a method's declared return type, and the type arguments of the holders whose content is returned
     * ({@link Optional}, collections, maps, arrays, Spring's {@code HttpEntity} and {@code ResponseEntity}).
     *
     * @return the deferred type the method returns (e.g. {@code java.util.concurrent.Callable}, or
     * {@code ResponseEntity<Flux>}), or null when none is declared
     */
    static String declared(Method method) {
        return deferred(ResolvableType.forMethodReturnType(method), 0);
    }

    private static String deferred(ResolvableType type, int depth) {
        Class<?> raw = type.resolve();
        if (raw == null || raw.isPrimitive() || depth > 4) {
            return null;
        }
        if (raw.isArray()) {
            return deferred(type.getComponentType(), depth + 1);
        }
        String found = DEFERRED_TYPE.get(raw);
        if (found != null) {
            return raw.getName();
        }
        ResolvableType content = null;
        if (raw == Optional.class || Collection.class.isAssignableFrom(raw)) {
            content = type.as(raw == Optional.class ? Optional.class : Iterable.class).getGeneric(0);
        } else if (Map.class.isAssignableFrom(raw)) {
            content = type.asMap().getGeneric(1);
        } else {
            Class<?> entity = supertypeIn(raw, HTTP_ENTITY);
            content = entity == null ? null : type.as(entity).getGeneric(0);
        }
        String inner = content == null ? null : deferred(content, depth + 1);
        return inner == null ? null : raw.getName() + "<" + inner + ">";
    }

    /**
     * Fails a call whose method returned deferred work (declared as {@code Object}, say) while what it holds is still
     * held: the work is cancelled or dropped first ({@link #discard}), then the exception goes to the caller, whose
     * {@code catch} releases the hold.
     *
     * @param caller e.g. {@code "@DistributedLocked on OrderService.pay(Order)"}
     * @param held   what the call holds, e.g. {@code "lock"}, {@code "permit"}
     * @throws IllegalStateException when {@code result} is or holds deferred work
     */
    static void refuse(Object result, String caller, String held) {
        Object work = deferredIn(result);
        if (work != null) {
            String fate = discard(work);
            throw new IllegalStateException(caller + ": returned a " + work.getClass().getName() + ", whose work may "
                    + "go on after the method returned, when the " + held + " is already released; " + fate
                    + ", and the call fails. Return the value itself (wait for the future, collect the stream into "
                    + "a list), or lock inside the asynchronous work (DistributedLock's async methods, for an owner "
                    + "from LockClient.newOwner())");
        }
    }

    /**
     * Checks one returned object, and the content of an {@link Optional} or an {@code HttpEntity}. Elements of
     * collections are not looked at (their declared type is, when the proxy is created).
     *
     * @return the deferred object: {@code value} or its content; null when there is none
     */
    static Object deferredIn(Object value) {
        for (int depth = 0; value != null && depth < 4; depth++) {
            Class<?> type = value.getClass();
            if (DEFERRED_TYPE.get(type) != null) {
                return value;
            }
            if (value instanceof Optional<?> optional) {
                value = optional.orElse(null);
            } else if (supertypeIn(type, HTTP_ENTITY) != null) {
                value = body(value);
            } else {
                return null;
            }
        }
        return null;
    }

    /**
     * Makes sure that the work of a refused result does as little as it can: a future is cancelled (its dependent
     * stages never run; a task not started never starts), a stream is closed without being consumed, anything else
     * is dropped, which keeps lazy work (a callable, a cold publisher, an iterator) from ever running.
     *
     * @param work what {@link #deferredIn} found
     * @return what became of the work, for the message
     */
    static String discard(Object work) {
        try {
            if (work instanceof Future<?> future) {
                future.cancel(true);
                return "it was cancelled: work it had not started never runs, work already running goes on outside "
                        + "the lock";
            }
            if (work instanceof BaseStream<?, ?> stream) {
                stream.close();
                return "it was closed without being consumed";
            }
        } catch (RuntimeException e) {
            return "discarding it failed (" + e + ")";
        }
        return "it was dropped: its work never runs unless something else already started it";
    }

    private static Object body(Object entity) {
        try {
            return entity.getClass().getMethod("getBody").invoke(entity);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static Class<?> supertypeIn(Class<?> type, String name) {
        return supertypeIn(type, List.of(name));
    }

    /** @return {@code type} or its supertype whose name is one of {@code names}, or null */
    private static Class<?> supertypeIn(Class<?> type, List<String> names) {
        if (type == null) {
            return null;
        }
        if (names.contains(type.getName())) {
            return type;
        }
        for (Class<?> parent : type.getInterfaces()) {
            Class<?> found = supertypeIn(parent, names);
            if (found != null) {
                return found;
            }
        }
        return supertypeIn(type.getSuperclass(), names);
    }
}
