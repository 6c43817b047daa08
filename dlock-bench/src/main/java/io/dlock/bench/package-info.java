/** Side-by-side benchmark of dlock and Redisson. */
package io.dlock.bench;
