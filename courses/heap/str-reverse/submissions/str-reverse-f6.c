#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void reverse(char *s)
{
    char *left = s;
    char *right = s + strlen(s) - 1;
    char tmp;

    while (left < right) {
        tmp = *left;
        *left = *right;
        *right = tmp;
        left++;
        right--;
    }
}

char *duplicate(const char *s)
{
    char *d = malloc(strlen(s));
    char *q = d;

    while (*s != '\0')
        *q++ = *s++;
    *q = '\0';
    return d;
}

int main(void)
{
    char buf[81];
    char *r;
    int palindromes = 0, words = 0;

    while (scanf("%80s", buf) == 1) {
        r = duplicate(buf);
        reverse(r);
        printf("%s -> %s", buf, r);
        if (strcmp(buf, r) == 0) {
            printf(" (palindrome)");
            palindromes++;
        }
        printf("\n");
        free(r);
        words++;
    }
    printf("%d words, %d palindromes\n", words, palindromes);
    return 0;
}
