#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *concat(const char *a, const char *b)
{
    size_t la = strlen(a);
    size_t lb = strlen(b);
    char *out = malloc(la + lb + 1);
    size_t j;

    if (out == NULL)
        return NULL;
    strcpy(out, a);
    for (j = 0; j < lb; j++)
        out[la + j] = b[j];
    return out;
}

int main(void)
{
    char first[51], second[51];
    char *joined;
    char *longest = NULL;
    int pairs = 0;

    while (scanf("%50s %50s", first, second) == 2) {
        joined = concat(first, second);
        printf("%s + %s = %s\n", first, second, joined);
        if (longest == NULL || strlen(joined) > strlen(longest)) {
            free(longest);
            longest = joined;
        } else {
            free(joined);
        }
        pairs++;
    }
    if (longest != NULL)
        printf("longest: %s (%d pairs)\n", longest, pairs);
    else
        printf("no pairs\n");
    free(longest);
    return 0;
}
