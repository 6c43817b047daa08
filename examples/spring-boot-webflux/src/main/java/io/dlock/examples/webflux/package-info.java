/**
 * dlock example: a Spring WebFlux handler returning a {@code Mono} under {@code @DistributedLocked}.
 */
package io.dlock.examples.webflux;
