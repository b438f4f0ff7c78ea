#include <stdio.h>
#include <stdlib.h>

struct item {
    int key;
    struct item *next;
};

struct item *insert_sorted(struct item *head, int key)
{
    struct item *fresh = malloc(sizeof(struct item));
    struct item *prev = NULL;
    struct item *cur = head;

    fresh->key = key;
    while (cur != NULL && cur->key <= key) {
        prev = cur;
        cur = cur->next;
    }
    fresh->next = cur;
    if (prev == NULL)
        return fresh;
    prev->next = fresh;
    return head;
}

int main(void)
{
    struct item *list = NULL;
    struct item *it;
    int n, v;

    scanf("%d", &n);
    while (n > 0 && scanf("%d", &v) == 1) {
        list = insert_sorted(list, v);
        n--;
    }
    printf("[");
    for (it = list; it != NULL; it = it->next) {
        printf("%d", it->key);
        if (it->next == NULL)
            printf(", ");
    }
    printf("]\n");
    while (list != NULL) {
        it = list;
        list = list->next;
        free(it);
    }
    return 0;
}
