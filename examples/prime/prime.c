#include <stdio.h>

/* A student's attempt: it says 1 is prime and that 4 is prime. */
int main(void) {
    int n, i, prime = 1;
    printf("Enter a number: ");
    scanf("%d", &n);
    for (i = 2; i * i < n; i++)
        if (n % i == 0)
            prime = 0;
    if (prime)
        printf("%d is prime\n", n);
    else
        printf("%d is not prime\n", n);
    return 0;
}
