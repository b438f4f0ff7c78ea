#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void my_strcpy(char *dst, const char *src)
{
    int i = 0;

    while (src[i] != '\0') {
        dst[i] = src[i];
        i++;
    }
}

void my_strncpy(char *dst, const char *src, int n)
{
    int i;

    for (i = 0; i < n && src[i] != '\0'; i++)
        dst[i] = src[i];
    dst[i] = '\0';
}

int main(void)
{
    char word[101];
    char *copy, *prefix;
    int n, len, count = 0;

    if (scanf("%d", &n) != 1)
        return 0;
    while (scanf("%100s", word) == 1) {
        len = strlen(word);
        copy = malloc(len + 1);
        my_strcpy(copy, word);
        prefix = malloc((n < len ? n : len) + 1);
        my_strncpy(prefix, copy, n);
        printf("%s [%s] %d\n", copy, prefix, len);
        free(copy);
        free(prefix);
        count++;
    }
    if (count == 0)
        printf("no words\n");
    return 0;
}
